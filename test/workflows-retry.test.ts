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

/** Gives the run its own copy of its version's definition (as rows written before migration 004 hold), changed by `edit` (SQL on `d`). */
async function holdOwnSnapshot(runId: string, edit: string): Promise<void> {
  await db.query(
    `UPDATE workflow_runs r SET snapshot = (SELECT ${edit} FROM (SELECT v.definition || jsonb_build_object('format', 1, 'workflow_id', r.workflow_id, 'version', r.workflow_version) AS d) x)
     FROM workflow_versions v WHERE r.id = $1 AND v.workflow_id = r.workflow_id AND v.version = r.workflow_version`,
    { bind: [runId] },
  );
}

test('a retry with a missing or incompatible snapshot is refused', async (t) => {
  const first = await failedRun('d');
  await holdOwnSnapshot(first.runId, `jsonb_set(d, '{format}', '99')`);
  const r1 = await retry(first.runId);
  t.is(r1.status, 409);
  t.regex(r1.body.detail, /snapshot/);
  const second = await failedRun('e');
  await holdOwnSnapshot(second.runId, `jsonb_set(d, '{steps,2,type}', '"ghost"')`);
  const r2 = await retry(second.runId);
  t.is(r2.status, 409);
  t.regex(r2.body.detail, /ghost/);
});

test('a run whose definition version is gone fails at once, stays readable, and cannot be retried', async (t) => {
  // only by hand: versions are kept (a version once read stays in memory, so this one is removed before any run of it)
  const wf = await k.createWorkflow('owner-token', flakyWorkflow('gone'));
  await db.query('DELETE FROM workflow_versions WHERE workflow_id = $1', { bind: [wf.id] });
  const res = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { wait: true } });
  t.is(res.body.status, 'failed', res.text);
  t.is(res.body.error.code, 'SNAPSHOT_MISSING');
  t.is(server.hits.get('/count/gone-left'), undefined, 'no step ran');
  const view = await k.call(`/api/v1/workflows/runs/${res.body.run_id}`, { token: 'owner-token' });
  t.is(view.status, 200, view.text);
  t.is(view.body.snapshot, null);
  const r = await retry(res.body.run_id);
  t.is(r.status, 409);
  t.regex(r.body.detail, /snapshot/);
});

test('a run stores no copy of its definition; deleting the workflow leaves its runs readable and retryable', async (t) => {
  const { runId, workflowId } = await failedRun('g');
  const [[stored]] = (await db.query('SELECT snapshot IS NULL AS by_version FROM workflow_runs WHERE id = $1', { bind: [runId] })) as [{ by_version: boolean }[], unknown];
  t.true(stored.by_version, 'the row references its definition version');
  t.is((await k.call(`/api/v1/workflows/${workflowId}`, { method: 'DELETE', token: 'owner-token' })).status, 204);
  const view = await k.call(`/api/v1/workflows/runs/${runId}`, { token: 'owner-token' });
  t.is(view.status, 200, view.text);
  t.is(view.body.snapshot.workflow_id, workflowId);
  t.is(view.body.snapshot.version, 1);
  t.deepEqual(view.body.snapshot.steps.map((s: { id: string }) => s.id), ['start', 'fan', 'left', 'call', 'join']);
  const res = await retry(runId);
  t.is(res.status, 202, res.text);
  const done = await runUntil(k, 'owner-token', res.body.run_id, ['completed']);
  t.is(done.snapshot.version, 1, 'the retry runs on the same version');
  const [[retried]] = (await db.query('SELECT snapshot IS NULL AS by_version FROM workflow_runs WHERE id = $1', { bind: [res.body.run_id] })) as [{ by_version: boolean }[], unknown];
  t.true(retried.by_version);
  t.is((await k.call(`/api/v1/workflows/runs/${runId}`, { token: 'other-token' })).status, 404, "another entity's token cannot see it");
});

test('a run that holds its own snapshot (written before migration 004) is retried on that copy', async (t) => {
  const { runId } = await failedRun('h');
  await holdOwnSnapshot(runId, `jsonb_set(d, '{name}', '"own copy"')`);
  const res = await retry(runId);
  t.is(res.status, 202, res.text);
  const done = await runUntil(k, 'owner-token', res.body.run_id, ['completed']);
  t.is(done.snapshot.name, 'own copy');
  const [[retried]] = (await db.query('SELECT snapshot->>\'name\' AS name FROM workflow_runs WHERE id = $1', { bind: [res.body.run_id] })) as [{ name: string }[], unknown];
  t.is(retried.name, 'own copy', 'the retry holds the copy too');
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
