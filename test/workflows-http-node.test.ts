import test from 'ava';
import { startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';
import { startLocalServer, type LocalServer } from './workflows-local-server.ts';

let open: WorkflowsKernel;
let closed: WorkflowsKernel;
let server: LocalServer;
test.before(async () => {
  server = await startLocalServer();
  [open, closed] = await Promise.all([
    startWorkflowsKernel('wf_http_allow', { env: { WORKFLOW_HTTP_ALLOW: '127.0.0.1/32', WORKFLOW_HTTP_MAX_RESPONSE_BYTES: '4096' } }),
    startWorkflowsKernel('wf_http_default'),
  ]);
});
test.after.always(async () => {
  await Promise.all([open?.close(), closed?.close()]);
  await server?.close();
});

const runNode = (k: WorkflowsKernel, config: Record<string, unknown>, input: unknown = null) =>
  k.call('/api/v1/workflows/run-node', { method: 'POST', token: 'member-token', json: { type: 'http', config, input } });

for (const [label, url, reason] of [
  ['127.0.0.1', 'http://127.0.0.1:9/x', /loopback/],
  ['the metadata address 169.254.169.254', 'http://169.254.169.254/latest/meta-data/', /link-local/],
  ['10.0.0.1', 'http://10.0.0.1/', /private/],
  ['a name resolving to loopback', 'http://localhost:9/x', /localhost resolves to .*loopback/],
  ['IPv6 loopback', 'http://[::1]:9/x', /loopback/],
  ['an IPv4-mapped private address', 'http://[::ffff:10.0.0.1]/', /private/],
] as const) {
  test(`an http step aimed at ${label} is refused`, async (t) => {
    const res = await runNode(closed, { url });
    t.is(res.status, 422, res.text);
    t.is(res.body.code, 'WORKFLOWS_ERR_NODE_FAILED');
    t.regex(res.body.detail, reason);
  });
}

test('the same step aimed at a private address fails the run step in a workflow', async (t) => {
  const wf = await closed.createWorkflow('owner-token', { name: 'ssrf', steps: [{ id: 's', type: 'trigger', next: ['h'] }, { id: 'h', type: 'http', config: { url: '{{trigger.target}}' }, next: [] }] });
  const res = await closed.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: { target: 'http://169.254.169.254/latest/' }, wait: true } });
  t.is(res.body.status, 'failed');
  t.regex(res.body.error.message, /link-local/);
});

test('the allow-list opens a chosen range; method, headers and JSON body go out', async (t) => {
  const res = await runNode(open, { method: 'POST', url: `${server.url}/json`, headers: { 'x-a': 'b' }, body: { hello: '{{trigger.who}}' } }, { who: 'ada' });
  t.is(res.status, 200, res.text);
  t.is(res.body.output.status, 200);
  t.deepEqual(res.body.output.body, { ok: true, path: '/json', method: 'POST', body: { hello: 'ada' } });
});

test('every redirect hop is checked: a redirect to a blocked address is refused', async (t) => {
  const ok = await runNode(open, { url: `${server.url}/redirect?to=${encodeURIComponent(`${server.url}/json`)}` });
  t.is(ok.status, 200, ok.text);
  t.is(ok.body.output.body.path, '/json');
  const bad = await runNode(open, { url: `${server.url}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/')}` });
  t.is(bad.status, 422, bad.text);
  t.regex(bad.body.detail, /link-local/);
});

test('responses are size-capped and time-bounded', async (t) => {
  const big = await runNode(open, { url: `${server.url}/big?bytes=100000` });
  t.is(big.status, 422);
  t.regex(big.body.detail, /larger than 4096 bytes/);
  const slow = await runNode(open, { url: `${server.url}/slow?ms=3000`, timeout: 0.3 });
  t.is(slow.status, 422);
  const status = await runNode(open, { url: `${server.url}/status/503` });
  t.is(status.status, 422);
  t.regex(status.body.detail, /answered 503/);
  const tolerated = await runNode(open, { url: `${server.url}/status/404`, fail_on_error_status: false });
  t.is(tolerated.body.output.status, 404);
});

test('run-node validates the type and the config', async (t) => {
  t.is((await open.call('/api/v1/workflows/run-node', { method: 'POST', token: 'member-token', json: { type: 'teleport', config: {} } })).status, 422);
  const bad = await runNode(open, { method: 'FETCH' });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['config.method', 'config.url']);
});
