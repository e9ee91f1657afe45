import test from 'ava';
import { startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

let errorsOnly: WorkflowsKernel;
let off: WorkflowsKernel;
test.before(async () => {
  [errorsOnly, off] = await Promise.all([
    startWorkflowsKernel('wf_persist_errors', { env: { WORKFLOW_RUN_PERSISTENCE: 'errors' } }),
    startWorkflowsKernel('wf_flows_off', { env: { FLOWS_AVAILABLE: 'false' } }),
  ]);
});
test.after.always(async () => {
  await Promise.all([errorsOnly?.close(), off?.close()]);
});

test('FLOWS_AVAILABLE=false turns the whole workflow surface off with a clear error', async (t) => {
  for (const [method, path] of [['GET', '/api/v1/workflows'], ['GET', '/api/v1/workflows/node-types'], ['POST', '/api/v1/workflows/trigger'], ['GET', '/api/v1/workflows/runs'], ['POST', '/api/v1/workflows/import']] as const) {
    const body = path.endsWith('/import') ? { format: 'n8n', data: { nodes: [] } } : { event: 'x' };
    const res = await off.call(path, { method, token: 'owner-token', json: method === 'POST' ? body : undefined });
    t.is(res.status, 403, `${method} ${path}: ${res.text}`);
    t.is(res.body.code, 'WORKFLOWS_ERR_DISABLED');
    t.regex(res.body.detail, /FLOWS_AVAILABLE=false/);
  }
  const hook = await off.call('/api/v1/workflows/webhook/abc', { method: 'POST', json: {} });
  t.is(hook.status, 403);
});

async function webhook(k: WorkflowsKernel, steps: unknown[]): Promise<string> {
  const ws = await k.createWorkspace('owner-token');
  const wf = await k.createWorkflow('owner-token', { name: 'inline', steps });
  const b = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: 'owner-token', json: { workflow_id: wf.id, workspace_id: ws, trigger: 'webhook' } });
  return b.body.webhook_token;
}

test('errors-only persistence stores no completed inline run, but stores a failed one in full', async (t) => {
  const ok = await webhook(errorsOnly, [
    { id: 'hook', type: 'webhook', next: ['reply'] },
    { id: 'reply', type: 'respond', config: { body: { echo: '{{trigger.body.v}}' } }, next: [] },
  ]);
  const res = await fetch(`${errorsOnly.kernel.apiUrl}/api/v1/workflows/webhook/${ok}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"v":3}' });
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { echo: 3 });
  const runId = res.headers.get('x-workflow-run-id')!;
  await new Promise((r) => setTimeout(r, 200));
  t.is((await errorsOnly.call(`/api/v1/workflows/runs/${runId}`, { token: 'owner-token' })).status, 404);

  const failing = await webhook(errorsOnly, [
    { id: 'hook', type: 'webhook', next: ['shape'] },
    { id: 'shape', type: 'transform', config: { set: { a: 1 } }, next: ['halt'] },
    { id: 'halt', type: 'stop', config: { fail: true, message: 'nope' }, next: [] },
  ]);
  const bad = await errorsOnly.call(`/api/v1/workflows/webhook/${failing}`, { method: 'POST', json: { v: 1 } });
  t.is(bad.status, 202);
  t.is(bad.body.status, 'failed');
  const stored = await errorsOnly.call(`/api/v1/workflows/runs/${bad.body.run_id}`, { token: 'owner-token' });
  t.is(stored.status, 200, stored.text);
  t.is(stored.body.status, 'failed');
  t.deepEqual(stored.body.steps.map((s: { step_id: string; status: string }) => `${s.step_id}:${s.status}`), ['hook:completed', 'shape:completed', 'halt:completed']);
});

test('errors-only persistence still stores queued (manual) runs', async (t) => {
  const wf = await errorsOnly.createWorkflow('owner-token', { name: 'manual', steps: [{ id: 's', type: 'trigger', next: [] }] });
  const res = await errorsOnly.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { wait: true } });
  t.is(res.body.status, 'completed');
  t.is((await errorsOnly.call(`/api/v1/workflows/runs/${res.body.run_id}`, { token: 'owner-token' })).status, 200);
});
