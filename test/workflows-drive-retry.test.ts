import test from 'ava';
import { QueryTypes } from 'sequelize';
import { kernelOf } from '../kernel/context.ts';
import { eventually } from './helpers/eventually.ts';
import { runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

/**
 * A drive that throws (here: the database refuses every commit, as a failing disk or a lost
 * connection would) is not a step failure. The worker lets the run go at once instead of
 * keeping its lease renewed for ever, and tries it again after a pause; once the database
 * takes commits again the run finishes. Leases and the sweep are ten minutes, so only the
 * retry can move the run on within the test.
 */
const OWNER = 'owner-token';
let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_drive_retry', { nodes: ['trigger', 'transform'], env: { WORKFLOW_LEASE_SECONDS: '600', WORKFLOW_SWEEP_SECONDS: '600' } });
  await db().query(`
    CREATE TABLE refuse_commits (on_purpose boolean);
    CREATE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM refuse_commits) THEN RAISE EXCEPTION 'commits refused by the test'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_commit BEFORE INSERT ON workflow_step_receipts FOR EACH ROW EXECUTE FUNCTION refuse_commit();`);
});
test.after.always(async () => k?.close());

const db = () => kernelOf(k.kernel.broker).db;
type Lease = { status: string; lease_owner: string | null; expired: boolean };
const lease = async (runId: string): Promise<Lease> =>
  (await db().query<Lease>('SELECT status, lease_owner, lease_expires_at <= now() AS expired FROM workflow_runs WHERE id = $1', { bind: [runId], type: QueryTypes.SELECT }))[0];

test('a run whose drive throws is let go, not renewed, and finishes once the database takes commits again', async (t) => {
  const wf = await k.createWorkflow(OWNER, {
    name: 'refused then taken',
    steps: [
      { id: 'start', type: 'trigger', next: ['double'] },
      { id: 'double', type: 'transform', config: { set: { greeting: 'hello {{trigger.name}}' } }, next: [] },
    ],
  });
  await db().query('INSERT INTO refuse_commits VALUES (true)');
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: OWNER, json: { input: { name: 'again' } } });
  t.is(started.status, 202, started.text);
  const runId = started.body.run_id;
  const released = await eventually(async () => {
    const l = await lease(runId);
    return l.status === 'running' && l.lease_owner === null && l.expired ? l : undefined;
  }, { timeoutMs: 30_000, intervalMs: 50 });
  t.truthy(released, 'the run was let go: no holder, its lease out');
  await db().query('DELETE FROM refuse_commits');
  const done = await runUntil(k, OWNER, runId, ['completed', 'failed'], 60_000);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual(done.output, { greeting: 'hello again' });
});
