import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * A bare node:http baseline answering every GET with a fixed JSON body read from BODY_FILE
 * (a body captured from the kernel, so both sides send the same bytes). PORT from the environment.
 */
const port = Number(process.env.PORT);
const body = readFileSync(String(process.env.BODY_FILE));
if (!Number.isInteger(port) || port <= 0) throw new Error('PORT must be set to a port number');

const server = createServer((req, res) => {
  res.writeHead(200, { 'X-Request-ID': randomUUID(), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'no-store' });
  res.end(body);
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
