import { createServer, type Server } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { createProxyServer } from 'http-proxy-3';
import { sendProblem } from './send.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { requestIdOf } from './request-id.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8',
};

const PROXIED = /^\/(api|health|metrics|book)(\/|$|\?)/;

/**
 * The web front end's listener: static files from `root`, and /api (plus /health, /metrics)
 * proxied to the API listener, so the browser talks to one origin.
 */
export function startWebServer(opts: { root: string; host: string; port: number; apiUrl: string }): Promise<Server> {
  const root = resolve(opts.root);
  const proxy = createProxyServer({ target: opts.apiUrl, xfwd: true, proxyTimeout: 120_000 });
  proxy.on('error', (_err, req, res) => {
    if ('writeHead' in res) sendProblem(res, ERRORS.SERVICE_UNAVAILABLE('The API is not reachable from the web listener.'), requestIdOf(req));
  });
  const server = createServer((req, res) => {
    if (PROXIED.test(req.url ?? '')) return proxy.web(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendProblem(res, ERRORS.METHOD_NOT_ALLOWED('Static files are read-only.'));
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) return sendProblem(res, ERRORS.NOT_FOUND('No such file.'));
    if (isDir(file)) file = join(file, 'index.html');
    // client-side routes fall back to the app shell
    if (!isFile(file)) file = extname(path) ? '' : join(root, 'index.html');
    if (!file || !isFile(file)) return sendProblem(res, ERRORS.NOT_FOUND(`No such file: ${path}`));
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'X-Content-Type-Options': 'nosniff' });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolvePromise(server));
  });
}

function isDir(path: string): boolean {
  try { return statSync(path).isDirectory(); } catch { return false; }
}
function isFile(path: string): boolean {
  try { return statSync(path).isFile(); } catch { return false; }
}
