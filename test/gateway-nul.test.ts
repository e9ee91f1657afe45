import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

let k: WorkflowsKernel;
let upstream: Server;
let upstreamUrl: string;
const ORIGIN = 'https://app.example.test';

test.before(async () => {
  // an upstream whose JSON answer carries an escaped NUL, as real services sometimes do
  upstream = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"v":"a\\u0000b"}'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  k = await startWorkflowsKernel('gw_nul', { env: { WORKFLOW_HTTP_ALLOW: '127.0.0.1/32', CORS_ORIGINS: ORIGIN } });
});
test.after.always(async () => {
  await k?.close();
  await new Promise((resolve) => upstream?.close(resolve));
});

const workspaceCount = async () => (await k.call('/api/v1/workspaces?limit=200', { token: 'owner-token' })).body.total;

test('a NUL in a body string, a nested value, a key or the query is a 422 naming the field, and nothing is stored', async (t) => {
  const before = await workspaceCount();
  const cases: [string, RequestInit & { json?: unknown }, string][] = [
    ['/api/v1/workspaces', { method: 'POST', json: { name: 'a\u0000b' } }, 'name'],
    ['/api/v1/workflows', { method: 'POST', json: { name: 'w', steps: [{ id: 's', type: 'trigger', next: ['t'] }, { id: 't', type: 'transform', config: { set: { x: 'a\u0000b' } }, next: [] }] } }, 'steps[1].config.set.x'],
    ['/api/v1/workspaces', { method: 'POST', json: { name: 'ok', ['bad\u0000key']: 1 } }, 'bad\\u0000key'],
    ['/api/v1/workspaces?q=a%00b', {}, 'q'],
  ];
  for (const [path, init, field] of cases) {
    const res = await k.call(path, { token: 'owner-token', ...init });
    t.is(res.status, 422, `${path}: ${res.text}`);
    t.is(res.body.code, 'VALIDATION_FAILED');
    t.is(res.body.errors[0].field, field);
    t.regex(res.body.errors[0].message, /NUL character/);
  }
  t.is(await workspaceCount(), before);
});

test('a NUL deep inside a nested body is still found and named', async (t) => {
  const depth = 90;
  const body = `{"name":"deep","x":${'['.repeat(depth)}"a\\u0000"${']'.repeat(depth)}}`;
  const res = await fetch(`${k.kernel.apiUrl}/api/v1/workspaces`, { method: 'POST', headers: { authorization: 'Bearer owner-token', 'content-type': 'application/json' }, body });
  const problem = await res.json();
  t.is(res.status, 422, JSON.stringify(problem).slice(0, 300));
  t.is(problem.errors[0].field, `x${'[0]'.repeat(depth)}`);
  t.is(problem.errors[0].type, 'stringNul');
});

test('a body nested thousands of levels deep is a 422 naming where, on every route, never a 500', async (t) => {
  const before = await workspaceCount();
  const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  const cases: [string, string][] = [
    ['/api/v1/workspaces', `{"name":"deep","x":${deep(10_000)}}`],
    ['/api/v1/workflows', `{"name":"deep","steps":[{"id":"s","type":"trigger","next":[],"config":${deep(10_000)}}]}`],
    ['/api/v1/workflows/import', `{"format":"n8n","source":${deep(10_000)}}`],
  ];
  for (const [path, body] of cases) {
    for (const origin of [undefined, ORIGIN]) {
      const res = await fetch(`${k.kernel.apiUrl}${path}`, { method: 'POST', headers: { authorization: 'Bearer owner-token', 'content-type': 'application/json', ...(origin ? { origin } : {}) }, body });
      const problem = await res.json();
      t.is(res.status, 422, `${path} ${origin ?? 'lean'}: ${JSON.stringify(problem).slice(0, 200)}`);
      t.is(problem.errors[0].type, 'tooDeep');
      t.regex(problem.errors[0].message, /nested more than 100 levels/);
    }
  }
  // within the limit the depth check lets it through
  const atLimit = await k.call('/api/v1/workspaces', { method: 'POST', token: 'owner-token', body: `{"name":"at the limit","x":${deep(99)}}`, headers: { 'content-type': 'application/json' } });
  t.is(atLimit.status, 422);
  t.not(atLimit.body.errors[0].type, 'tooDeep', 'x is not a workspace field: the validator, not the depth check, refuses it');
  t.is(await workspaceCount(), before);
});

test('the moleculer-web path (a CORS request) refuses a NUL the same way', async (t) => {
  const res = await fetch(`${k.kernel.apiUrl}/api/v1/workspaces`, { method: 'POST', headers: { authorization: 'Bearer owner-token', 'content-type': 'application/json', origin: ORIGIN }, body: JSON.stringify({ name: 'x\u0000' }) });
  const body = await res.json();
  t.is(res.status, 422, JSON.stringify(body));
  t.is(res.headers.get('access-control-allow-origin'), ORIGIN);
  t.like(body, { code: 'VALIDATION_FAILED', errors: [{ field: 'name' }] });
});

test('without a token the answer is still 401, not a validation error, on both gateway paths', async (t) => {
  const init = { method: 'POST', json: { name: 'a\u0000b' } };
  t.is((await k.call('/api/v1/workspaces', init)).status, 401);
  // an Origin header sends the call through moleculer-web (CORS is on here)
  const full = await k.call('/api/v1/workspaces', { ...init, headers: { Origin: ORIGIN } });
  t.is(full.status, 401);
  t.is(full.headers.get('access-control-allow-origin'), ORIGIN);
  t.is((await k.call('/api/v1/workspaces', { ...init, token: 'owner-token', headers: { Origin: ORIGIN } })).status, 422, 'with a token, the NUL is refused there too');
});

test('a node output carrying a NUL is stored with U+FFFD instead of failing the run', async (t) => {
  const wf = await k.createWorkflow('owner-token', { name: 'nul-out', steps: [{ id: 's', type: 'trigger', next: ['h'] }, { id: 'h', type: 'http', config: { url: upstreamUrl, method: 'GET' }, next: [] }] });
  const res = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: {}, wait: true } });
  t.is(res.status, 200, res.text);
  t.is(res.body.status, 'completed', res.text);
  const run = await k.call(`/api/v1/workflows/runs/${res.body.id}`, { token: 'owner-token' });
  const step = run.body.steps.find((s: { step_id: string }) => s.step_id === 'h');
  t.deepEqual(step.output.body, { v: 'a\ufffdb' }, JSON.stringify(step.output));
});
