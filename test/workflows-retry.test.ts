import test from 'ava';
import { Sequelize } from 'sequelize';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';
import { startLocalServer, type LocalServer } from './workflows-local-server.ts';

let k: WorkflowsKernel;
let server: LocalServer;
let db: Sequelize;
test.before(async () => {
  server = await startLocalServer();
  k = await startWorkflowsKernel('wf_retry', { env: { WORKFLOW_HTTP_ALLOW: '127.0.0.1/32' } });
  db = new Sequelize(k.db.url, { dialect: 'postgres', logging: false });
});
test.after.always(async () => {
  await db?.close();
  await k?.close();
  await server?.close();
});

function flakyWorkflow(name: string) {
  return {
    name,
    steps: [
      { id: 'start', type: 'trigger', next: ['fan'] },
      { id: 'fan', type: 'parallel', next: ['left', 'call'] },
      { id: 'left', type: 'http', config: { url: `${server.url}/count/${name}-left` }, next: ['join'] },
      { id: 'call', type: 'http', config: { url: `${server.url}/flaky/${name}` }, next: ['join'] },
      { id: 'join', type: 'merge', config: {}, next: [] },
    ],
  };
}

async function failedRun(name: string): Promise<{ runId: string; workflowId: string }> {
  const wf = await k.createWorkflow('owner-token', flakyWorkflow(name));
  const res = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: { n: 1 }, wait: true } });
  if (res.body.status !== 'failed') throw new Error(`expected failed: ${res.text}`);
  return { runId: res.body.run_id, workflowId: wf.id };
}

const retry = (runId: string, json: unknown = {}) => k.call(`/api/v1/workflows/runs/${runId}/retry`, { method: 'POST', token: 'owner-token', json });

test('retry from the failed receipt keeps completed siblings and reruns the failed step and what depends on it', async (t) => {
  const { runId } = await failedRun('a');
  const res = await retry(runId);
  t.is(res.status, 202, res.text);
  t.deepEqual(res.body.from_step_ids, ['call']);
  t.deepEqual(res.body.invalidated_steps.sort(), ['call', 'join']);
  t.deepEqual(res.body.carried_steps.sort(), ['fan', 'left', 'start']);
  const done = await runUntil(k, 'owner-token', res.body.run_id, ['completed']);
  t.is(server.hits.get('/count/a-left'), 1, 'the completed sibling did not run again');
  t.is(server.hits.get('/flaky/a'), 2);
  t.is(receipt(done, 'left').carried_from, runId);
  t.is(receipt(done, 'call').carried_from, null);
  t.deepEqual(Object.keys(receipt(done, 'join').output).sort(), ['call', 'left']);
  t.is(done.retry_of, runId);
  t.is(done.lineage_attempt, 2);
  const original = (await k.call(`/api/v1/workflows/runs/${runId}`, { token: 'owner-token' })).body;
  t.is(original.status, 'failed', 'the original stays failed');
  const family = await k.call(`/api/v1/workflows/runs/${res.body.run_id}/family`, { token: 'owner-token' });
  t.is(family.status, 200);
  t.deepEqual(family.body.runs.map((r: { id: string }) => r.id), [runId, res.body.run_id]);
  t.is(family.body.runs[1].recovery.carried_receipts, 3);
  t.deepEqual(family.body.runs[1].recovery.invalidated_steps.sort(), ['call', 'join']);
});

test('retry from an explicit from_step_id invalidates that step and its dependants', async (t) => {
  const { runId } = await failedRun('b');
  const res = await retry(runId, { from_step_id: 'fan' });
  t.is(res.status, 202, res.text);
  t.deepEqual(res.body.carried_steps, ['start']);
  await runUntil(k, 'owner-token', res.body.run_id, ['completed']);
  t.is(server.hits.get('/count/b-left'), 2);
});

test('a retry with a from_step_id that does not exist is refused and creates nothing', async (t) => {
  const { runId, workflowId } = await failedRun('c');
  const res = await retry(runId, { from_step_id: 'ghost' });
  t.is(res.status, 422, res.text);
  t.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['from_step_id']);
  t.is((await k.call(`/api/v1/workflows/runs?workflow_id=${workflowId}`, { token: 'owner-token' })).body.total, 1);
});

test('only a failed run can be retried', async (t) => {
  const wf = await k.createWorkflow('owner-token', { name: 'ok', steps: [{ id: 'start', type: 'trigger', next: [] }] });
  const res = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { wait: true } });
  const r = await retry(res.body.run_id);
  t.is(r.status, 409);
  t.is(r.body.code, 'WORKFLOWS_ERR_RETRY_REFUSED');
  t.is((await retry('00000000-0000-7000-8000-000000000000')).status, 404);
});

test('a retry with a missing or incompatible snapshot is refused', async (t) => {
  const first = await failedRun('d');
  await db.query(`UPDATE workflow_runs SET snapshot = jsonb_set(snapshot, '{format}', '99') WHERE id = $1`, { bind: [first.runId] });
  const r1 = await retry(first.runId);
  t.is(r1.status, 409);
  t.regex(r1.body.detail, /snapshot/);
  const second = await failedRun('e');
  await db.query(`UPDATE workflow_runs SET snapshot = jsonb_set(snapshot, '{steps,2,type}', '"ghost"') WHERE id = $1`, { bind: [second.runId] });
  const r2 = await retry(second.runId);
  t.is(r2.status, 409);
  t.regex(r2.body.detail, /ghost/);
});

test('a step with an unreconciled uncertain effect blocks retry until reconciled', async (t) => {
  const { runId } = await failedRun('f');
  // the state a worker death leaves behind for an in-flight POST (see workflows-durability.test.ts for the real thing)
  await db.query(`UPDATE workflow_step_receipts SET status = 'needs_reconciliation', uncertain = true WHERE run_id = $1 AND step_id = 'call'`, { bind: [runId] });
  await db.query(`UPDATE workflow_runs SET error = '{"step_id":"call","code":"UNCERTAIN_EFFECT"}' WHERE id = $1`, { bind: [runId] });
  const refused = await retry(runId);
  t.is(refused.status, 409);
  t.is(refused.body.code, 'WORKFLOWS_ERR_UNRECONCILED_EFFECT');
  const step = (json: unknown) => k.call(`/api/v1/workflows/runs/${runId}/step`, { method: 'POST', token: 'owner-token', json });
  t.is((await step({ step_id: 'left', action: 'reconcile', outcome: 'succeeded' })).status, 409, 'only a step needing reconciliation');
  const reconciled = await step({ step_id: 'call', action: 'reconcile', outcome: 'succeeded', output: { flaky: 'done elsewhere' } });
  t.is(reconciled.status, 200, reconciled.text);
  const res = await retry(runId);
  t.is(res.status, 202, res.text);
  const done = await runUntil(k, 'owner-token', res.body.run_id, ['completed']);
  t.is(server.hits.get('/flaky/f'), 1, 'the reconciled step was not repeated');
  t.deepEqual(receipt(done, 'join').output.call, { flaky: 'done elsewhere' });
});
