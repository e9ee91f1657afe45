import test from 'ava';
import { QueryTypes } from 'sequelize';
import { startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

let k: WorkflowsKernel;
let workspaceId: string;
test.before(async () => {
  k = await startWorkflowsKernel('idem_runs');
  workspaceId = await k.createWorkspace('owner-token');
});
test.after.always(async () => {
  await k?.close();
});

const SILENT = { name: 'silent', steps: [{ id: 'hook', type: 'webhook', next: ['x'] }, { id: 'x', type: 'transform', config: { set: { a: 1 } }, next: [] }] };

async function runsOf(workflowId: string): Promise<number> {
  const [row] = await k.kernel.stores!.db.query<{ n: string }>('SELECT count(*) AS n FROM workflow_runs WHERE workflow_id = :workflowId', { replacements: { workflowId }, type: QueryTypes.SELECT });
  return Number(row.n);
}

async function webhookToken(workflowId: string): Promise<string> {
  const res = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: 'owner-token', json: { workflow_id: workflowId, workspace_id: workspaceId, trigger: 'webhook' } });
  if (res.status !== 201) throw new Error(`binding create answered ${res.status}: ${res.text}`);
  return res.body.webhook_token;
}

const hook = (token: string, key: string, json: unknown) => k.call(`/api/v1/workflows/webhook/${token}`, { method: 'POST', json, headers: { 'Idempotency-Key': key } });

test('the public webhook keys per binding: a retry replays its run, another binding with the same key runs its own', async (t) => {
  const wf = await k.createWorkflow('owner-token', SILENT);
  const [first, second] = [await webhookToken(wf.id), await webhookToken(wf.id)];
  const started = await hook(first, 'delivery-1', { a: 1 });
  t.is(started.status, 202, started.text);
  const retried = await hook(first, 'delivery-1', { a: 1 });
  t.is(retried.status, 202);
  t.is(retried.headers.get('Idempotent-Replayed'), 'true');
  t.is(retried.body.run_id, started.body.run_id);
  const elsewhere = await hook(second, 'delivery-1', { a: 1 });
  t.is(elsewhere.status, 202, elsewhere.text);
  t.is(elsewhere.headers.get('Idempotent-Replayed'), null);
  t.not(elsewhere.body.run_id, started.body.run_id);
  t.is((await hook(first, 'delivery-1', { a: 2 })).status, 422, 'another delivery under the same key');
  t.is(await runsOf(wf.id), 2);
  const [stored] = await k.kernel.stores!.db.query<{ n: string }>('SELECT count(*) AS n FROM idempotency_keys WHERE scope LIKE :token', { replacements: { token: `%${first}%` }, type: QueryTypes.SELECT });
  t.is(Number(stored.n), 0, 'the token itself is not stored, only its hash');
});

test('starting a run with a key starts it once', async (t) => {
  const wf = await k.createWorkflow('owner-token', SILENT);
  const start = () => k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: { n: 1 }, wait: false }, headers: { 'Idempotency-Key': '"run-once"' } });
  const first = await start();
  t.true(first.status === 202 || first.status === 200, first.text);
  const again = await start();
  t.is(again.status, first.status);
  t.is(again.headers.get('Idempotent-Replayed'), 'true');
  t.is(again.body.run_id, first.body.run_id);
  t.is(await runsOf(wf.id), 1);
});
