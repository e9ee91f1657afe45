import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

/**
 * The baseline of bench/health.ts: a bare node:http server answering GET /health with the
 * bytes the gateway sends (same body, same headers, a fresh X-Request-ID per request).
 * PORT from the environment; listens on 127.0.0.1.
 */
const BODY = JSON.stringify({ status: 'ok' });
const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error('PORT must be set to a port number');

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'X-Request-ID': randomUUID(), 'Content-Type': 'application/json', 'Content-Length': BODY.length, 'Cache-Control': 'no-store' });
    res.end(BODY);
    return;
  }
  res.writeHead(404, { 'Content-Type': 'application/json', 'Content-Length': 2 });
  res.end('{}');
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
