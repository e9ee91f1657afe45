import test from 'ava';
import { QueryTypes, Sequelize } from 'sequelize';
import { startWorkflowsKernel, linearWorkflow, type WorkflowsKernel } from './workflows-helpers.ts';
import { newRunOf } from '../plugins/workflows/run-launch.ts';
import { leaseOwnerName } from '../plugins/workflows/engine/engine.ts';
import { QUEUED_START, RunRecovery, type QueuedRun } from '../plugins/workflows/store/run-recovery.ts';
import type { WorkflowsService } from '../plugins/workflows/service.ts';
import type { NewRun } from '../plugins/workflows/store/run-types.ts';
import { RENEW_LEASES_SQL } from '../plugins/workflows/store/runs.ts';
import { eventually } from './helpers/eventually.ts';

/**
 * The statements behind the recovery at start (store/run-recovery.ts) and lease renewal, on a
 * real PostgreSQL: which runs a starting work node takes, and that two nodes starting at once
 * never take the same run.
 */

let k: WorkflowsKernel;
let svc: WorkflowsService;
let sql: Sequelize;
let recovery: RunRecovery;
let definition: Awaited<ReturnType<WorkflowsService['definitions']['get']>>;

test.before(async () => {
  // no periodic sweep during the tests: only the statements under test move the rows
  k = await startWorkflowsKernel('wf_recovery', { env: { WORKFLOW_SWEEP_SECONDS: '3600' } });
  svc = k.kernel.broker.getLocalService('workflows') as unknown as WorkflowsService;
  sql = new Sequelize(k.db.url, { logging: false });
  recovery = new RunRecovery(svc.sql);
  const wf = await k.createWorkflow('owner-token', linearWorkflow('recovery'));
  definition = await svc.definitions.get('e-1', wf.id);
});

test.after.always(async () => {
  await sql?.close();
  await k?.close();
});

/** `n` run rows in `status`, held by `owner` for ten minutes */
async function runs(n: number, status: 'pending' | 'running', owner: string | null): Promise<NewRun[]> {
  const made = Array.from({ length: n }, () => newRunOf(definition, { owner_id: 'u-owner', trigger_type: 'manual', trigger: {} }));
  await Promise.all(made.map((run) => svc.runs.create(run, { status, leaseOwner: owner, leaseSeconds: 600 })));
  return made;
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

test.serial('a starting node takes the running runs of a holder whose process presence is gone, and leaves a live holder\'s and an unnamed holder\'s', async (t) => {
  const dead = await runs(3, 'running', leaseOwnerName('gone-node', 2_000_000_001));
  const live = await runs(2, 'running', svc.engine.owner);
  const legacy = await runs(1, 'running', 'old-node:1a2b3c4d');
  const taken = await recovery.takeAbandoned(60, 500);
  t.deepEqual(ids(taken), ids(dead));
  t.true(taken.every((r) => r.recoveries === 1));
  const rows = await sql.query<{ id: string; lease_owner: string | null; recoveries: number }>('SELECT id, lease_owner, recoveries FROM workflow_runs WHERE id = ANY($1::uuid[])', {
    bind: [[...dead, ...live, ...legacy].map((r) => r.id)],
    type: QueryTypes.SELECT,
  });
  for (const row of rows) {
    if (dead.some((r) => r.id === row.id)) t.like(row, { lease_owner: null, recoveries: 1 }, 'handed back to the queue');
    else t.like(row, { recoveries: 0 }, 'a live holder keeps its run');
  }
  t.deepEqual(await recovery.takeAbandoned(60, 500), [], 'taken once');
});

test.serial('two nodes starting together take each abandoned run exactly once', async (t) => {
  const dead = await runs(40, 'running', leaseOwnerName('gone-node', 2_000_000_002));
  const [a, b] = await Promise.all([recovery.takeAbandoned(60, 500), recovery.takeAbandoned(60, 500)]);
  t.deepEqual(ids([...a, ...b]), ids(dead));
});

test.serial('pending runs and timer waits not yet due are listed page by page, each once; due timers are taken instead', async (t) => {
  const pending = await runs(5, 'pending', null);
  const [later, due] = await runs(2, 'running', null);
  await sql.query(
    `UPDATE workflow_runs SET status = 'paused', lease_owner = NULL,
       pause = jsonb_build_object('kind', 'timer', 'step_id', 'a', 'resume_at', to_jsonb(now() + make_interval(secs => $2))), lease_expires_at = now() + make_interval(secs => $2)
     WHERE id = $1`,
    { bind: [later.id, 3600] },
  );
  await sql.query(
    `UPDATE workflow_runs SET status = 'paused', lease_owner = NULL,
       pause = jsonb_build_object('kind', 'timer', 'step_id', 'a', 'resume_at', to_jsonb(now() - interval '1 second')), lease_expires_at = now() - interval '1 second'
     WHERE id = $1`,
    { bind: [due.id] },
  );
  const listed: QueuedRun[] = [];
  for (let cursor = QUEUED_START; ; ) {
    const page = await recovery.queuedAfter(cursor, 2);
    listed.push(...page);
    if (page.length < 2) break;
    cursor = page[page.length - 1];
  }
  t.deepEqual(ids(listed), ids([...pending, later]), 'every pending run and the future timer, once');
  t.truthy(listed.find((r) => r.id === later.id)?.resume_at);
  t.deepEqual(ids(await recovery.takeAbandoned(60, 500)), [due.id], 'the due timer is taken, as by the sweep');
});

test.serial('lease renewal renews only the runs the holder drives now: one whose drive ended without letting go runs out', async (t) => {
  const owner = leaseOwnerName('renew-node', 2_000_000_002);
  const [driven, stranded] = await runs(2, 'running', owner);
  await sql.query("UPDATE workflow_runs SET lease_expires_at = now() + interval '1 second' WHERE id = ANY($1::uuid[])", { bind: [[driven.id, stranded.id]] });
  t.is(await svc.runs.renewLeases(owner, 600, [driven.id]), 1);
  t.is(await svc.runs.renewLeases(owner, 600, []), 0, 'nothing driven, nothing renewed (and no statement)');
  const rows = await sql.query<{ id: string; long: boolean }>("SELECT id, lease_expires_at > now() + interval '1 minute' AS long FROM workflow_runs WHERE id = ANY($1::uuid[])", { bind: [[driven.id, stranded.id]], type: QueryTypes.SELECT });
  t.deepEqual(Object.fromEntries(rows.map((r) => [r.id === driven.id ? 'driven' : 'stranded', r.long])), { driven: true, stranded: false });
});

test.serial('lease renewal finds a holder\'s runs through the lease_owner index', async (t) => {
  const plan = await sql.transaction(async (transaction) => {
    // the table is small: without this, a sequential scan is cheaper than any index
    await sql.query('SET LOCAL enable_seqscan = off', { transaction });
    return sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${RENEW_LEASES_SQL}`, { bind: ['n#1', 30, ['00000000-0000-0000-0000-000000000001']], transaction, type: QueryTypes.SELECT });
  });
  t.regex(plan.map((r) => r['QUERY PLAN']).join('\n'), /workflow_runs_lease_owner/);
});

test.serial('a node joining the cluster (perhaps the restart of one that died holding runs) makes the work node take the dead holder\'s runs at once', async (t) => {
  const [run] = await runs(1, 'running', leaseOwnerName('api-node-before-restart', 2_000_000_003));
  k.kernel.broker.broadcastLocal('$node.connected', { node: { id: 'api-node-after-restart' }, reconnected: false });
  const done = await eventually(async () => {
    const row = (await k.call(`/api/v1/workflows/runs/${run.id}`, { token: 'owner-token' })).body;
    return row?.status === 'completed' ? row : undefined;
  }, { timeoutMs: 30_000 });
  t.is(done?.status, 'completed');
  t.is(done?.recoveries, 1);
});
