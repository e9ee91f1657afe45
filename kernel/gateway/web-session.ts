import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, sendProblem } from './send.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { requestIdOf } from './request-id.ts';

/**
 * Sign-in for the web app (README "Web app: sign-in"): the bearer token lives in an HttpOnly,
 * SameSite=Strict cookie that page scripts cannot read; the web listener's proxy turns it into
 * `Authorization: Bearer` for /api. Unsafe methods carrying the cookie must come from this
 * listener's own origin.
 */
export const SESSION_COOKIE = 'wao_session';
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOGIN_BODY_LIMIT = 16 * 1024;

/** The session token from the request's cookies, if any. */
export function sessionToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** The Cookie header without the session cookie (the API never sees it). */
export function cookiesWithoutSession(header: string | undefined): string | undefined {
  const rest = (header ?? '').split(';').filter((p) => p.split('=')[0]?.trim() !== SESSION_COOKIE && p.trim());
  return rest.length ? rest.join(';').trim() : undefined;
}

/** True when a state-changing request says it comes from the listener's own origin (or a safe method). */
export function originAllowed(req: IncomingMessage, publicOrigin: string | undefined): boolean {
  if (!UNSAFE.has(req.method ?? 'GET')) return true;
  const origin = req.headers.origin;
  if (!origin) return false;
  if (publicOrigin && origin === publicOrigin) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

function cookie(token: string, maxAge: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
}

export interface SessionRoutes {
  /** handles /session (POST sign in, DELETE sign out) and /session/refresh; false when the path is not one of them */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

export function sessionRoutes(opts: { apiUrl: string; publicOrigin?: string; secureCookie: boolean }): SessionRoutes {
  const forward = async (req: IncomingMessage, path: string, init: { token?: string; body?: string }): Promise<Response> => {
    const headers: Record<string, string> = { 'X-Request-Id': requestIdOf(req), 'X-Forwarded-For': req.socket.remoteAddress ?? '' };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    if (init.token) headers.Authorization = `Bearer ${init.token}`;
    return fetch(`${opts.apiUrl}/api/v1/auth/${path}`, { method: 'POST', headers, body: init.body });
  };
  const relay = async (res: ServerResponse, upstream: Response): Promise<void> => {
    const text = await upstream.text();
    const headers: Record<string, string> = { 'Content-Type': upstream.headers.get('content-type') ?? 'application/problem+json' };
    for (const h of ['x-request-id', 'retry-after']) if (upstream.headers.get(h)) headers[h] = upstream.headers.get(h)!;
    res.writeHead(upstream.status, headers);
    res.end(text);
  };
  const issue = async (res: ServerResponse, upstream: Response): Promise<void> => {
    if (upstream.status !== 200) return relay(res, upstream);
    const { access_token, expires_in } = (await upstream.json()) as { access_token: string; expires_in: number };
    sendJson(res, 200, { signed_in: true, expires_in }, { 'Set-Cookie': cookie(access_token, expires_in, opts.secureCookie), 'Cache-Control': 'no-store' });
  };
  const run = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (!originAllowed(req, opts.publicOrigin)) return void sendProblem(res, ERRORS.WEB_ERR_ORIGIN('Sign-in and sign-out must come from this web app.'), requestIdOf(req));
    if (path === '/session' && req.method === 'POST') return issue(res, await forward(req, 'login', { body: await readBody(req) }));
    if (path === '/session/refresh' && req.method === 'POST') return issue(res, await forward(req, 'refresh', { token: sessionToken(req) }));
    if (path === '/session' && req.method === 'DELETE') {
      const token = sessionToken(req);
      if (token) await forward(req, 'logout', { token }).then((r) => r.body?.cancel());
      res.writeHead(204, { 'Set-Cookie': cookie('', 0, opts.secureCookie), 'Cache-Control': 'no-store' });
      return void res.end();
    }
    sendProblem(res, ERRORS.METHOD_NOT_ALLOWED('Use POST /session to sign in, DELETE /session to sign out, POST /session/refresh to renew.'), requestIdOf(req));
  };
  return {
    handle(req, res) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/session' && path !== '/session/refresh') return false;
      run(req, res, path).catch((err) => sendProblem(res, err instanceof TooLarge ? ERRORS.PAYLOAD_TOO_LARGE('The sign-in body is too large.') : ERRORS.SERVICE_UNAVAILABLE('The API is not reachable from the web listener.'), requestIdOf(req)));
      return true;
    },
  };
}

class TooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= LOGIN_BODY_LIMIT) return void chunks.push(c);
      req.removeAllListeners('data');
      req.resume(); // drain the rest so the 413 can still be written
      reject(new TooLarge());
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
