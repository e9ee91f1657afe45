import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { sendProblem } from './send.ts';
import { ERRORS } from '../errors/catalogue.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
};

/**
 * The web app's Content-Security-Policy: scripts only from this origin (no inline script, no
 * eval: the app's JSON-schema validator interprets schemas instead of compiling them). Inline
 * style attributes stay allowed because the canvas positions nodes with them.
 */
export const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
  "font-src 'self'", "connect-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin', 'X-Frame-Options': 'DENY',
};

/**
 * Serves the built app from `root`: a file when one matches, `index.html` for any other
 * extension-less path (client-side routes and deep links), 404 for a missing asset.
 */
export function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return void sendProblem(res, ERRORS.METHOD_NOT_ALLOWED('Static files are read-only.'));
  let path: string;
  try {
    path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
  } catch {
    return void sendProblem(res, ERRORS.BAD_REQUEST('The path is not valid percent-encoding.'));
  }
  let file = normalize(join(root, path));
  if (file !== root && !file.startsWith(root + sep)) return void sendProblem(res, ERRORS.NOT_FOUND('No such file.'));
  if (isDir(file)) file = join(file, 'index.html');
  const shell = !isFile(file);
  if (shell) {
    if (extname(path)) return void sendProblem(res, ERRORS.NOT_FOUND(`No such file: ${path}`));
    file = join(root, 'index.html');
    if (!isFile(file)) return void sendProblem(res, ERRORS.SERVICE_UNAVAILABLE('The web app is not built (web/dist is missing): run `npm start` or `npm run build -w web`.'));
  }
  // hashed bundle files never change under one name; the shell must always be asked again
  const immutable = !shell && path.startsWith('/assets/');
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

function isDir(path: string): boolean {
  try { return statSync(path).isDirectory(); } catch { return false; }
}
function isFile(path: string): boolean {
  try { return statSync(path).isFile(); } catch { return false; }
}
