import test from 'ava';
import { QueryTypes } from 'sequelize';
import { kernelOf } from '../../../kernel/context.ts';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';

/**
 * A parent run whose worker is gone while its subworkflow step waits for a child: the run's
 * lease is handed to a dead holder, so the sweeper gives it to another drive, which runs the
 * step again from the receipts. With its continuation intact the same child is awaited; with
 * the continuation forged or deleted the run fails and no child is started again.
 */
const OWNER = 'owner-token';
let k: WorkflowsKernel;
let waitingId: string;
let parentId: string;
let plainId: string;
test.before(async () => {
  k = await startWorkflowsKernel('wf_sub_takeover', { nodes: ['trigger', 'transform', 'wait', 'subworkflow'] });
  waitingId = (await k.createWorkflow(OWNER, { name: 'needs approval', steps: [{ id: 'start', type: 'trigger', next: ['ok'] }, { id: 'ok', type: 'wait', config: { wait_type: 'approval' }, next: [] }] })).id;
  parentId = (await k.createWorkflow(OWNER, { name: 'parent', steps: [{ id: 'start', type: 'trigger', next: ['sub'] }, { id: 'sub', type: 'subworkflow', config: { workflow_id: waitingId }, next: [] }] })).id;
  plainId = (await k.createWorkflow(OWNER, { name: 'plain', steps: [{ id: 'start', type: 'trigger', next: [] }] })).id;
});
test.after.always(async () => k?.close());

const db = () => kernelOf(k.kernel.broker).db;
const family = async (runId: string) => (await k.call(`/api/v1/workflows/runs/${runId}/family`, { token: OWNER })).body;

/** A parent run waiting on its paused child: its id and the child's. */
async function parentWaiting(): Promise<{ parent: string; child: string }> {
  const started = await k.call(`/api/v1/workflows/${parentId}/run`, { method: 'POST', token: OWNER, json: { input: {} } });
  let f: any;
  for (let i = 0; i < 1200 && f?.children?.[0]?.status !== 'paused'; i++) {
    f = await family(started.body.run_id);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { parent: started.body.run_id, child: f.children[0].run_id };
}

/** The worker holding the run is gone: its lease names a dead holder and has run out. */
async function loseWorker(runId: string): Promise<void> {
  await db().query("UPDATE workflow_runs SET lease_owner = 'gone#0', lease_expires_at = now() - interval '1 minute' WHERE id = $1", { bind: [runId], type: QueryTypes.UPDATE });
}

async function runCount(): Promise<number> {
  const [row] = await db().query<{ n: string }>("SELECT count(*) AS n FROM workflow_runs WHERE trigger_type = 'subworkflow'", { type: QueryTypes.SELECT });
  return Number(row.n);
}

test.serial('taken over with its continuation: the same child is awaited, none started again', async (t) => {
  const { parent, child } = await parentWaiting();
  const before = await runCount();
  await loseWorker(parent);
  // the sweeper hands the run to a new drive (recoveries counts it), which re-runs the waiting step
  for (let i = 0; i < 1200 && (await family(parent)).runs[0].recoveries === 0; i++) await new Promise((r) => setTimeout(r, 50));
  t.true((await family(parent)).runs[0].recoveries > 0);
  t.is((await k.call(`/api/v1/workflows/runs/${child}/resume`, { method: 'POST', token: OWNER, json: { decision: 'approve' } })).status, 200);
  const done = await runUntil(k, OWNER, parent, ['completed', 'failed'], 60_000);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual(receipt(done, 'sub').child_runs, [child]);
  t.is(await runCount(), before, 'no child was started again');
});

for (const [label, tamper, code] of [
  ['forged (it names a run that is not its child)', 'forge', 'CONTINUATION_MISMATCH'],
  ['absent', 'delete', 'CONTINUATION_MISSING'],
] as const) {
  test.serial(`taken over with its continuation ${label}: the run fails, the step is not replayed`, async (t) => {
    const { parent } = await parentWaiting();
    const other = await k.call(`/api/v1/workflows/${plainId}/run`, { method: 'POST', token: OWNER, json: { input: {}, wait: true } });
    if (tamper === 'forge') {
      await db().query("UPDATE workflow_step_receipts SET output = jsonb_set(output, '{child_run_ids,0}', to_jsonb($2::text)) WHERE run_id = $1 AND step_id = 'sub:continuation'", { bind: [parent, other.body.run_id ?? other.body.id], type: QueryTypes.UPDATE });
    } else {
      await db().query("DELETE FROM workflow_step_receipts WHERE run_id = $1 AND step_id = 'sub:continuation'", { bind: [parent], type: QueryTypes.DELETE });
    }
    const before = await runCount();
    await loseWorker(parent);
    const done = await runUntil(k, OWNER, parent, ['failed', 'completed'], 60_000);
    t.is(done.status, 'failed');
    t.is(receipt(done, 'sub').error.code, code);
    t.is(await runCount(), before, 'no child was started again');
    t.is((await family(parent)).children.length, 1);
  });
}
