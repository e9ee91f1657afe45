import { createServer } from 'node:http';

/**
 * The baseline of bench/workflows-webhook.ts: a bare node:http server doing by hand what the
 * benchmarked workflow does (webhook -> transform -> respond): read the JSON body, build the
 * same object, answer it as JSON. PORT from the environment; listens on 127.0.0.1.
 */
const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error('PORT must be set to a port number');

const server = createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (raw += chunk));
  req.on('end', () => {
    let body: { name?: unknown } = {};
    try {
      body = JSON.parse(raw || '{}');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const shaped = { hello: body.name, via: req.method };
    const payload = JSON.stringify({ greeting: `hi ${body.name}`, shaped });
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(payload), 'Cache-Control': 'no-store' });
    res.end(payload);
  });
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
