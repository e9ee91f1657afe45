import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  url: string;
  port: number;
  /** hits per path (without the query) */
  hits: Map<string, number>;
  /** resolves when a request for this path arrives */
  arrived(path: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A local HTTP server the http node tests talk to (on 127.0.0.1, reached through the
 * WORKFLOW_HTTP_ALLOW allow-list):
 *   /json          {"ok": true, "method": ..., "body": <request body>}
 *   /slow?ms=N     answers after N ms
 *   /status/N      answers status N
 *   /big?bytes=N   a body of N bytes
 *   /redirect?to=U 302 to U
 *   /flaky/NAME    500 on the first request for NAME, 200 after
 *   /list?n=N      a JSON array of N objects {i}
 *   anything else  {"path": ...}
 */
export async function startLocalServer(): Promise<LocalServer> {
  const hits = new Map<string, number>();
  const waiters = new Map<string, (() => void)[]>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    for (const w of waiters.get(url.pathname) ?? []) w();
    waiters.delete(url.pathname);
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (url.pathname.startsWith('/slow')) {
        setTimeout(() => json(200, { slow: true }), Number(url.searchParams.get('ms') ?? 1000));
      } else if (url.pathname.startsWith('/status/')) json(Number(url.pathname.split('/')[2]), { status: true });
      else if (url.pathname === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(Number(url.searchParams.get('bytes') ?? 1000)));
      } else if (url.pathname === '/list') {
        json(200, Array.from({ length: Math.min(100, Number(url.searchParams.get('n') ?? 0) || 0) }, (_, i) => ({ i })));
      } else if (url.pathname.startsWith('/flaky/')) {
        if (hits.get(url.pathname) === 1) json(500, { flaky: 'failed' });
        else json(200, { flaky: 'ok' });
      } else if (url.pathname === '/redirect') {
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        res.end();
      } else json(200, { ok: true, path: url.pathname, method: req.method, body: body ? JSON.parse(body) : null });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    arrived: (path) => new Promise((resolve) => waiters.set(path, [...(waiters.get(path) ?? []), resolve])),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
