import test from 'ava';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/pg.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const CONTEXT = { entity_id: 'e-1', user_id: 'u-owner', workspace_id: null, agent_id: null, run_id: null, step_id: null, invocation_id: 'c-1' };

let kernel: TestKernel;
let db: TestDatabase;
let root: string;
/** on 127.0.0.2: the only address the allow-list opens */
let allowed: { server: Server; url: string };
/** on 127.0.0.1: loopback, refused */
let loopback: { server: Server; url: string; hits: number };

async function listen(host: string, handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}

test.before(async () => {
  loopback = { ...(await listen('127.0.0.1', (_req, res) => { loopback.hits++; res.end('secret'); })), hits: 0 };
  allowed = await listen('127.0.0.2', (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      if (url.pathname === '/to-loopback') {
        res.writeHead(302, { location: `${loopback.url}/` });
        return res.end();
      }
      if (url.pathname === '/big') return res.end('x'.repeat(4096));
      if (url.pathname === '/missing') {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('no such thing');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, path: url.pathname, body, type: req.headers['content-type'] ?? null, custom: req.headers['x-custom'] ?? null }));
    });
  });
  root = mkdtempSync(join(tmpdir(), 'wao-tool-http-'));
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
  db = await createTestDatabase('tool_http_request');
  kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: db.url, WORKFLOW_HTTP_ALLOW: '127.0.0.2/32', WORKFLOW_HTTP_MAX_RESPONSE_BYTES: '2048' } });
  const record = await kernel.loader.load(join(ROOT, 'tools', 'http_request'));
  if (record.state !== 'loaded') throw new Error(`tools/http_request did not load: ${record.error?.message}`);
});
test.after.always(async () => {
  await kernel?.close();
  await db?.drop();
  allowed?.server.close();
  loopback?.server.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const exec = (args: Record<string, unknown>) => kernel.broker.call('tool.http_request.execute', { arguments: args, context: CONTEXT }, { meta: { user: { id: 'u-owner', entity_id: 'e-1', role: 'owner' } } }) as Promise<any>;

async function refused(t: any, url: string, why: RegExp) {
  const err = await t.throwsAsync(exec({ url }));
  t.is(err?.type, 'TOOLS_ERR_FAILED', url);
  t.regex(err?.message ?? '', why, url);
}

test('loopback, link-local, cloud metadata, private and names resolving to loopback are refused', async (t) => {
  const port = new URL(loopback.url).port;
  await refused(t, `http://127.0.0.1:${port}/`, /refused: target 127\.0\.0\.1 is a loopback address/);
  await refused(t, `http://[::1]:${port}/`, /refused: target ::1 is a loopback address/);
  await refused(t, 'http://169.254.169.254/latest/meta-data/', /refused: target 169\.254\.169\.254 is a link-local/);
  await refused(t, 'http://10.0.0.1/', /refused: target 10\.0\.0\.1 is a private address/);
  await refused(t, 'http://192.168.1.1/', /private address/);
  await refused(t, 'http://[fd00::1]/', /unique-local/);
  await refused(t, `http://localhost:${port}/`, /refused: localhost resolves to .* loopback address/);
  await refused(t, `http://[::ffff:127.0.0.1]:${port}/`, /loopback/);
  t.is(loopback.hits, 0, 'the refused server was never reached');
});

test('a redirect from an allowed host to loopback is refused on the second hop', async (t) => {
  await refused(t, `${allowed.url}/to-loopback`, /refused: target 127\.0\.0\.1 is a loopback address/);
  t.is(loopback.hits, 0);
});

test('an allow-listed address is reached: JSON in and out, headers, error statuses as answers', async (t) => {
  const res = await exec({ method: 'POST', url: `${allowed.url}/echo`, headers: { 'X-Custom': 'yes' }, body: { a: 1 } });
  t.like(res, { status: 200, ok: true, url: `${allowed.url}/echo`, body: { method: 'POST', path: '/echo', body: '{"a":1}', type: 'application/json', custom: 'yes' } });
  t.is(res.headers['content-type'], 'application/json');
  const text = await exec({ method: 'PUT', url: `${allowed.url}/t`, headers: { 'content-type': 'text/plain' }, body: 'hello' });
  t.like(text.body, { method: 'PUT', body: 'hello', type: 'text/plain' });
  t.like(await exec({ url: `${allowed.url}/missing` }), { status: 404, ok: false, body: 'no such thing' });
});

test('a response over WORKFLOW_HTTP_MAX_RESPONSE_BYTES fails for the model', async (t) => {
  const err = await t.throwsAsync<any>(exec({ url: `${allowed.url}/big` }));
  t.is(err?.type, 'TOOLS_ERR_FAILED');
  t.regex(err?.message ?? '', /larger than 2048 bytes/);
});

test('bad arguments: schema problems are invalid arguments, the rest tool errors', async (t) => {
  for (const args of [{}, { url: 'ftp://example.com/' }, { url: 'http://x', method: 'TRACE' }, { url: 'http://x', timeout_seconds: 0 }, { url: 'http://x', headers: { a: 1 } }, { url: 'http://x', extra: true }]) {
    const err = await t.throwsAsync<any>(exec(args));
    t.is(err?.type, 'TOOLS_ERR_INVALID_ARGUMENTS', JSON.stringify(args));
  }
  for (const [args, why] of [
    [{ url: 'http://exa mple.com/' }, /not a valid URL/],
    [{ url: `${allowed.url}/`, headers: { Host: 'evil' } }, /'Host' is set by the client itself/],
    [{ url: `${allowed.url}/`, headers: { 'bad name': 'x' } }, /not a valid header name/],
    [{ url: `${allowed.url}/`, headers: { 'x-a': 'a\r\nb: c' } }, /control character/],
    [{ url: `${allowed.url}/`, body: 'x' }, /a GET request has no body/],
  ] as const) {
    const err = await t.throwsAsync<any>(exec(args));
    t.is(err?.type, 'TOOLS_ERR_FAILED', JSON.stringify(args));
    t.regex(err?.message ?? '', why);
  }
});
