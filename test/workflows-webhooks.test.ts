import test from 'ava';
import { Sequelize } from 'sequelize';
import { runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

let k: WorkflowsKernel;
let workspaceId: string;
test.before(async () => {
  k = await startWorkflowsKernel('wf_webhooks', { env: { WORKFLOW_WEBHOOK_MAX_BODY_BYTES: '2048', WORKFLOW_WEBHOOK_INLINE_SECONDS: '1', WORKFLOW_INLINE_WAIT_SECONDS: '5' } });
  workspaceId = await k.createWorkspace('owner-token');
});
test.after.always(async () => {
  await k?.close();
});

const RESPONDING = {
  name: 'responding',
  steps: [
    { id: 'hook', type: 'webhook', next: ['shape'] },
    { id: 'shape', type: 'transform', config: { set: { hello: '{{trigger.body.name}}', via: '{{trigger.method}}', q: '{{trigger.query.tag}}' } }, next: ['reply'] },
    { id: 'reply', type: 'respond', config: { status: 201, headers: { 'X-Flow': 'yes' }, body: { greeting: 'hi {{shape.output.hello}}', shaped: '{{shape.output}}' } }, next: [] },
  ],
};

async function webhookBinding(definition: Record<string, unknown>, token = 'owner-token'): Promise<{ binding: any; token: string }> {
  const wf = await k.createWorkflow(token, definition);
  const res = await k.call('/api/v1/workflows/bindings', { method: 'POST', token, json: { workflow_id: wf.id, workspace_id: workspaceId, trigger: 'webhook' } });
  if (res.status !== 201) throw new Error(`binding create answered ${res.status}: ${res.text}`);
  return { binding: res.body, token: res.body.webhook_token };
}

const hook = (token: string, init: RequestInit & { json?: unknown } = {}) =>
  k.call(`/api/v1/workflows/webhook/${token}${init.method === 'GET' ? '' : ''}`, { method: 'POST', ...init });

test('a webhook binding gets a secret token, stored only as its hash', async (t) => {
  const { binding, token } = await webhookBinding(RESPONDING);
  t.true(token.length >= 43, 'at least 256 bits, base64url');
  t.true(binding.webhook_url.endsWith(`/api/v1/workflows/webhook/${token}`));
  t.true(binding.has_webhook_token);
  const db = new Sequelize(k.db.url, { dialect: 'postgres', logging: false });
  try {
    const [rows] = await db.query('SELECT webhook_token_hash FROM workflow_bindings WHERE id = $1', { bind: [binding.id] });
    const stored = (rows as { webhook_token_hash: string }[])[0].webhook_token_hash;
    t.regex(stored, /^[0-9a-f]{64}$/);
    t.not(stored, token);
    const [all] = await db.query("SELECT count(*) AS n FROM workflow_bindings WHERE to_jsonb(workflow_bindings.*)::text LIKE '%' || $1 || '%'", { bind: [token] });
    t.is(Number((all as { n: string }[])[0].n), 0, 'the token is nowhere in the row');
  } finally {
    await db.close();
  }
  const listed = await k.call('/api/v1/workflows/bindings', { token: 'owner-token' });
  t.false(JSON.stringify(listed.body).includes(token));
});

test('the webhook runs inline and the respond step sets status, headers and body', async (t) => {
  const { token } = await webhookBinding(RESPONDING);
  const res = await fetch(`${k.kernel.apiUrl}/api/v1/workflows/webhook/${token}?tag=t1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ada' }) });
  t.is(res.status, 201);
  t.is(res.headers.get('x-flow'), 'yes');
  const runId = res.headers.get('x-workflow-run-id')!;
  t.deepEqual(await res.json(), { greeting: 'hi ada', shaped: { hello: 'ada', via: 'POST', q: 't1' } });
  const run = await runUntil(k, 'owner-token', runId, ['completed']);
  t.is(run.trigger_type, 'webhook');
  t.deepEqual(run.trigger.body, { name: 'ada' });
  t.is(run.steps.length, 3);
});

test('without a respond step the caller gets 202 with the run id', async (t) => {
  const { token } = await webhookBinding({ name: 'silent', steps: [{ id: 'hook', type: 'webhook', next: ['x'] }, { id: 'x', type: 'transform', config: { set: { a: 1 } }, next: [] }] });
  const res = await hook(token, { json: { a: 1 } });
  t.is(res.status, 202, res.text);
  t.regex(res.body.run_id, /^[0-9a-f-]{36}$/);
  await runUntil(k, 'owner-token', res.body.run_id, ['completed']);
});

test('a wrong token and a rotated token are 404', async (t) => {
  const { binding, token } = await webhookBinding(RESPONDING);
  t.is((await hook('not-a-token', { json: {} })).status, 404);
  t.is((await hook(token, { json: {} })).status, 201);
  const rotated = await k.call(`/api/v1/workflows/bindings/${binding.id}`, { method: 'PUT', token: 'owner-token', json: { rotate_webhook_token: true } });
  t.is(rotated.status, 200, rotated.text);
  t.not(rotated.body.webhook_token, token);
  t.is((await hook(token, { json: {} })).status, 404);
  t.is((await hook(rotated.body.webhook_token, { json: {} })).status, 201);
  const disabled = await k.call(`/api/v1/workflows/bindings/${binding.id}`, { method: 'PUT', token: 'owner-token', json: { enabled: false } });
  t.is(disabled.status, 200);
  t.is((await hook(rotated.body.webhook_token, { json: {} })).status, 404);
});

test('a webhook body that is not JSON or is too large is refused and starts no run', async (t) => {
  const { binding, token } = await webhookBinding(RESPONDING);
  const malformed = await hook(token, { headers: { 'content-type': 'application/json' }, body: '{"name": ' });
  t.is(malformed.status, 400, malformed.text);
  t.is(malformed.body.code, 'MALFORMED_JSON');
  const text = await hook(token, { headers: { 'content-type': 'text/plain' }, body: 'hello' });
  t.is(text.status, 415);
  const large = await hook(token, { json: { blob: 'x'.repeat(4000) } });
  t.is(large.status, 413, large.text);
  t.is(large.body.code, 'PAYLOAD_TOO_LARGE');
  const runs = await k.call(`/api/v1/workflows/runs?binding_id=${binding.id}`, { token: 'owner-token' });
  t.is(runs.body.total, 0);
});

test('a run past the inline bound keeps going in the background and the caller gets 202', async (t) => {
  const { token } = await webhookBinding({
    name: 'slow',
    steps: [
      { id: 'hook', type: 'webhook', next: ['nap'] },
      { id: 'nap', type: 'wait', config: { wait_type: 'timer', seconds: 2 }, next: ['reply'] },
      { id: 'reply', type: 'respond', config: { body: 'late' }, next: [] },
    ],
  });
  const res = await hook(token, { json: {} });
  t.is(res.status, 202, res.text);
  t.is(res.body.status, 'running');
  const run = await runUntil(k, 'owner-token', res.body.run_id, ['completed'], 15_000);
  t.is(run.steps.length, 3);
});

test('bindings: validation, another entity, event triggers need an event', async (t) => {
  const wf = await k.createWorkflow('owner-token', RESPONDING);
  const missing = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: 'owner-token', json: { workflow_id: wf.id, workspace_id: workspaceId, trigger: { type: 'event' } } });
  t.is(missing.status, 422);
  const otherWs = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: 'other-token', json: { workflow_id: wf.id, workspace_id: workspaceId, trigger: 'manual' } });
  t.is(otherWs.status, 404);
  const ok = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: 'owner-token', json: { workflow_id: wf.id, workspace_id: workspaceId, trigger: 'manual', variables: { a: 1 } } });
  t.is(ok.status, 201);
  t.is(ok.body.webhook_token, undefined);
  t.is((await k.call(`/api/v1/workflows/bindings/${ok.body.id}`, { method: 'DELETE', token: 'other-token' })).status, 404);
  t.is((await k.call(`/api/v1/workflows/bindings/${ok.body.id}`, { method: 'PUT', token: 'other-token', json: { enabled: false } })).status, 404);
  const stored = await k.call(`/api/v1/workflows/bindings?workspace_id=${workspaceId}`, { token: 'owner-token' });
  t.true(stored.body.items.find((b: { id: string }) => b.id === ok.body.id).enabled);
  t.is((await k.call(`/api/v1/workflows/bindings/${ok.body.id}`, { method: 'DELETE', token: 'owner-token' })).status, 204);
});

test('a binding run uses the binding variables and workspace', async (t) => {
  const wf = await k.createWorkflow('owner-token', { name: 'vars', steps: [{ id: 's', type: 'trigger', next: ['e'] }, { id: 'e', type: 'end', config: { output: '{{who}}' } }], variables: { who: 'definition' } });
  const b = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: 'owner-token', json: { workflow_id: wf.id, workspace_id: workspaceId, trigger: 'manual', variables: { who: 'binding' } } });
  const res = await k.call(`/api/v1/workflows/bindings/${b.body.id}/run`, { method: 'POST', token: 'owner-token', json: { wait: true } });
  t.is(res.status, 200, res.text);
  t.is(res.body.output, 'binding');
  t.is(res.body.workspace_id, workspaceId);
  t.is(res.body.binding_id, b.body.id);
});

test('respond headers that HTTP cannot carry are dropped or encoded, never a 500', async (t) => {
  const { token } = await webhookBinding({
    name: 'odd headers',
    steps: [
      { id: 'hook', type: 'webhook', next: ['reply'] },
      { id: 'reply', type: 'respond', config: { status: 200, headers: { 'X-Fine': 'ok', 'Bad Name': 'x', 'X-Line': 'a\r\nInjected: yes', 'X-Templated': '{{trigger.body.v}}' }, body: { ok: true } }, next: [] },
    ],
  });
  const res = await hook(token, { json: { v: 'é and\nnewline' } });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body, { ok: true });
  t.is(res.headers.get('x-fine'), 'ok');
  t.is(res.headers.get('injected'), null, 'no header injection through a value');
  t.is(res.headers.get('x-line'), encodeURI('a\r\nInjected: yes'));
  t.is(res.headers.get('x-templated'), encodeURI('é and\nnewline'));

  const { token: textToken } = await webhookBinding({
    name: 'odd content type',
    steps: [
      { id: 'hook', type: 'webhook', next: ['reply'] },
      { id: 'reply', type: 'respond', config: { status: 200, headers: { 'Content-Type': 'text/plain\r\nX-Evil: 1' }, body: 'plain words' }, next: [] },
    ],
  });
  const text = await hook(textToken, { json: {} });
  t.is(text.status, 200, text.text);
  t.is(text.headers.get('x-evil'), null);
  t.regex(text.headers.get('content-type') ?? '', /^application\/json/);
  t.is(text.body, 'plain words');
});

test("the entry step's output is the run's trigger, stored once: reads and templates after a reload still see it", async (t) => {
  const { token } = await webhookBinding({
    name: 'stored once',
    steps: [
      { id: 'hook', type: 'webhook', next: ['ask'] },
      { id: 'ask', type: 'wait', config: { wait_type: 'approval' }, next: ['shape'] },
      // resolved after the approval, by a worker that read the receipts back from the database
      { id: 'shape', type: 'transform', config: { set: { who: '{{hook.output.body.name}}', whole: '{{hook.output}}' } }, next: [] },
    ],
  });
  const res = await hook(token, { json: { name: 'zed', pad: 'x'.repeat(500) } });
  t.is(res.status, 202, res.text);
  const runId = res.body.run_id;
  await runUntil(k, 'owner-token', runId, ['paused']);
  const db = new Sequelize(k.db.url, { dialect: 'postgres', logging: false });
  try {
    const [[row]] = (await db.query(`SELECT output IS NULL AS no_copy, directive->>'output' AS marker FROM workflow_step_receipts WHERE run_id = $1 AND step_id = 'hook'`, { bind: [runId] })) as [{ no_copy: boolean; marker: string }[], unknown];
    t.deepEqual(row, { no_copy: true, marker: 'trigger' }, 'the receipt holds no copy of the request');
  } finally {
    await db.close();
  }
  t.is((await k.call(`/api/v1/workflows/runs/${runId}/resume`, { method: 'POST', token: 'owner-token', json: { decision: 'approve' } })).status, 200);
  const done = await runUntil(k, 'owner-token', runId, ['completed']);
  const hookReceipt = done.steps.find((s: { step_id: string }) => s.step_id === 'hook');
  t.is(hookReceipt.output.body.name, 'zed', 'the trace shows the output');
  t.deepEqual(hookReceipt.output, done.trigger);
  const shaped = done.steps.find((s: { step_id: string }) => s.step_id === 'shape').output;
  t.is(shaped.who, 'zed');
  t.deepEqual(shaped.whole, done.trigger);
});
