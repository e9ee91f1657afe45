import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { createProxyServer } from 'http-proxy-3';
import { sendProblem } from './send.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { requestIdOf } from './request-id.ts';
import { serveStatic } from './web-static.ts';
import { cookiesWithoutSession, originAllowed, sessionRoutes, sessionToken } from './web-session.ts';

const PROXIED = /^\/(api|health|metrics)(\/|$|\?)/;

export interface WebServerOptions {
  /** the built app (web/dist) */
  root: string;
  host: string;
  port: number;
  apiUrl: string;
  /** the service's public origin (PUBLIC_BASE_URL); also accepted as Origin of unsafe requests */
  publicOrigin?: string;
  /** `npm run dev`: Vite's dev server, which then serves everything outside /api, /health and /session */
  devServerUrl?: string;
}

/**
 * The web front end's listener (WEB_PORT): the app from `root` (any other GET is the app
 * shell, for deep links), sign-in at /session, and /api, /health, /metrics proxied to the
 * API listener unbuffered (event streams and uploads pass through as they come), so the
 * browser talks to one origin.
 */
export function startWebServer(opts: WebServerOptions): Promise<Server> {
  const root = resolve(opts.root);
  const secureCookie = opts.publicOrigin?.startsWith('https:') ?? false;
  const session = sessionRoutes({ apiUrl: opts.apiUrl, publicOrigin: opts.publicOrigin, secureCookie });
  const proxy = createProxyServer({ target: opts.apiUrl, xfwd: true, proxyTimeout: 120_000 });
  proxy.on('error', (_err, req, res) => {
    if ('writeHead' in res) sendProblem(res, ERRORS.SERVICE_UNAVAILABLE('The API is not reachable from the web listener.'), requestIdOf(req));
  });
  proxy.on('proxyReq', (proxyReq, req) => {
    const token = sessionToken(req);
    const rest = cookiesWithoutSession(req.headers.cookie);
    if (rest) proxyReq.setHeader('Cookie', rest);
    else proxyReq.removeHeader('Cookie');
    if (token && !req.headers.authorization) proxyReq.setHeader('Authorization', `Bearer ${token}`);
  });
  const dev = opts.devServerUrl ? createProxyServer({ target: opts.devServerUrl, ws: true }) : undefined;
  dev?.on('error', (_err, req, res) => {
    if ('writeHead' in res) sendProblem(res, ERRORS.SERVICE_UNAVAILABLE('The Vite dev server is not reachable.'), requestIdOf(req));
  });

  const server = createServer((req, res) => {
    if (session.handle(req, res)) return;
    if (PROXIED.test(req.url ?? '')) {
      const cookieAuth = sessionToken(req) !== undefined && !req.headers.authorization;
      if (cookieAuth && !originAllowed(req, opts.publicOrigin)) {
        return sendProblem(res, ERRORS.WEB_ERR_ORIGIN('A request signed in by cookie must come from this web app; other clients send Authorization: Bearer.'), requestIdOf(req));
      }
      return proxy.web(req, res);
    }
    if (dev) return dev.web(req, res);
    serveStatic(root, req, res);
  });
  if (dev) server.on('upgrade', (req, socket, head) => dev.ws(req, socket, head));
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolvePromise(server));
  });
}
