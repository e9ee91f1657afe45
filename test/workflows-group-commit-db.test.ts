import test from 'ava';
import { Sequelize, QueryTypes } from 'sequelize';
import { startWorkflowsKernel, linearWorkflow, type WorkflowsKernel } from './workflows-helpers.ts';
import { newRunOf } from '../plugins/workflows/run-launch.ts';
import type { WorkflowsService } from '../plugins/workflows/service.ts';
import type { ReceiptRow } from '../plugins/workflows/store/run-types.ts';

let k: WorkflowsKernel;
let svc: WorkflowsService;
let sql: Sequelize;
test.before(async () => {
  k = await startWorkflowsKernel('wf_group_commit');
  svc = k.kernel.broker.getLocalService('workflows') as unknown as WorkflowsService;
  sql = new Sequelize(k.db.url, { logging: false });
});
test.after.always(async () => {
  await sql?.close();
  await k?.close();
});

const receipt = (step_id: string, output: unknown): ReceiptRow => {
  const at = new Date().toISOString();
  return { step_id, status: 'completed', attempt: 1, input: null, output, error: null, taken: [], directive: null, uncertain: false, carried_from: null, started_at: at, finished_at: at, execute_ms: 0.1 };
};

test('concurrent creates and commits are grouped, and each run keeps its own lease guard, receipts and event order', async (t) => {
  const wf = await k.createWorkflow('owner-token', linearWorkflow('grouped'));
  const definition = await svc.definitions.get('e-1', wf.id);
  const runs = Array.from({ length: 40 }, (_, i) => newRunOf(definition, { owner_id: 'u-owner', trigger_type: 'manual', trigger: { i } }));
  const created = await Promise.all(runs.map((run) => svc.runs.create(run, { status: 'running', leaseOwner: 'me', leaseSeconds: 60, events: [{ type: 'run.created', data: {} }, { type: 'run.started', data: {} }], receipts: [receipt('start', { i: run.trigger })] })));
  t.deepEqual(created.map((c) => c.id), runs.map((r) => r.id));
  t.true(created.every((c) => c.seq === 2 && c.status === 'running'));

  // every fifth commit comes from a worker that does not hold the run: it must change nothing
  const seqs = await Promise.all(
    runs.map((run, i) =>
      svc.runs.commit(run, i % 5 === 0 ? 'not-me' : 'me', {
        receipts: [receipt('middle', { n: i, nul: 'a\u0000b' })],
        events: [{ type: 'step.started', data: { step_id: 'middle' } }, { type: 'step.finished', data: { step_id: 'middle', status: 'completed' } }],
        finish: i % 2 === 0 ? { status: 'completed', output: { n: i } } : undefined,
      }),
    ),
  );
  t.deepEqual(seqs, runs.map((_, i) => (i % 5 === 0 ? undefined : 4)));

  const rows = await sql.query<{ id: string; status: string; seq: number; output: unknown; receipts: number; events: number[] }>(
    `SELECT r.id, r.status, r.seq, r.output,
       (SELECT count(*)::int FROM workflow_step_receipts s WHERE s.run_id = r.id) AS receipts,
       (SELECT array_agg(seq ORDER BY seq) FROM workflow_run_events e WHERE e.run_id = r.id) AS events
     FROM workflow_runs r WHERE r.id = ANY($1::uuid[])`,
    { bind: [runs.map((r) => r.id)], type: QueryTypes.SELECT },
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  runs.forEach((run, i) => {
    const row = byId.get(run.id)!;
    if (i % 5 === 0) t.like(row, { status: 'running', seq: 2, receipts: 1 }, `run ${i} untouched`);
    else {
      t.like(row, { status: i % 2 === 0 ? 'completed' : 'running', seq: 4, receipts: 2 }, `run ${i}`);
      if (i % 2 === 0) t.deepEqual(row.output, { n: i });
    }
    // the events of one commit are one row, at the seq of its last frame
    t.deepEqual(row.events, i % 5 === 0 ? [2] : [2, 4], `events of run ${i}`);
  });
});

test('two commits of one run submitted together are applied in order (in two statements), each seeing the last', async (t) => {
  const wf = await k.createWorkflow('owner-token', linearWorkflow('twice'));
  const definition = await svc.definitions.get('e-1', wf.id);
  const blockers = Array.from({ length: 5 }, () => newRunOf(definition, { owner_id: 'u-owner', trigger_type: 'manual', trigger: null }));
  const run = newRunOf(definition, { owner_id: 'u-owner', trigger_type: 'manual', trigger: null });
  await Promise.all([...blockers, run].map((r) => svc.runs.create(r, { status: 'running', leaseOwner: 'me', leaseSeconds: 60, events: [{ type: 'run.created', data: {} }] })));
  // the blockers take the free slot, so both commits of `run` wait and go in the same group
  const step = (id: string) => ({ receipts: [receipt(id, id)], events: [{ type: 'step.started', data: { step_id: id } }, { type: 'step.finished', data: { step_id: id, status: 'completed' } }] });
  const [, first, second] = await Promise.all([Promise.all(blockers.map((b) => svc.runs.commit(b, 'me', step('x')))), svc.runs.commit(run, 'me', step('a')), svc.runs.commit(run, 'me', { ...step('b'), finish: { status: 'completed', output: 'done' } })]);
  t.is(first, 3);
  t.is(second, 5);
  const [row] = await sql.query<{ status: string; seq: number; events: number[] }>(
    'SELECT status, seq, (SELECT array_agg(seq ORDER BY seq) FROM workflow_run_events e WHERE e.run_id = r.id) AS events FROM workflow_runs r WHERE id = $1',
    { bind: [run.id], type: QueryTypes.SELECT },
  );
  t.deepEqual(row, { status: 'completed', seq: 5, events: [1, 3, 5] });
});

test('events replay from any seq: from inside a commit\'s row, and from rows an earlier version wrote one per step', async (t) => {
  const wf = await k.createWorkflow('owner-token', linearWorkflow('replay'));
  const definition = await svc.definitions.get('e-1', wf.id);
  const run = newRunOf(definition, { owner_id: 'u-owner', trigger_type: 'manual', trigger: null });
  await svc.runs.create(run, { status: 'running', leaseOwner: 'me', leaseSeconds: 60, events: [{ type: 'run.created', data: {} }, { type: 'run.started', data: {} }] });
  await svc.runs.commit(run, 'me', {
    receipts: [receipt('a', 1)],
    events: [{ type: 'step.started', data: { step_id: 'a' } }, { type: 'step.finished', data: { step_id: 'a' } }, { type: 'run.finished', data: { status: 'completed' } }],
    finish: { status: 'completed', output: 1 },
  });
  // a row of the earlier format (a step's started and finished frames) after them
  await sql.query("INSERT INTO workflow_run_events (run_id, seq, type, data) VALUES ($1, 7, 'step', $2::jsonb)", { bind: [run.id, JSON.stringify({ started: { step_id: 'old' }, finished: { step_id: 'old', status: 'completed' } })] });
  const all = await svc.runQueries.eventsAfter(run.id, 0);
  t.deepEqual(all.map((e) => [e.seq, e.type]), [[1, 'run.created'], [2, 'run.started'], [3, 'step.started'], [4, 'step.finished'], [5, 'run.finished'], [6, 'step.started'], [7, 'step.finished']]);
  t.deepEqual(all[3].data, { step_id: 'a' });
  const afterFour = await svc.runQueries.eventsAfter(run.id, 4);
  t.deepEqual(afterFour.map((e) => [e.seq, e.type]), [[5, 'run.finished'], [6, 'step.started'], [7, 'step.finished']]);
  const afterSix = await svc.runQueries.eventsAfter(run.id, 6);
  t.deepEqual(afterSix.map((e) => [e.seq, e.type]), [[7, 'step.finished']]);
});

test('the database itself refuses a run or receipt status outside the state machine, and keeps the row unchanged', async (t) => {
  const wf = await k.createWorkflow('owner-token', linearWorkflow('domains'));
  const definition = await svc.definitions.get('e-1', wf.id);
  const run = newRunOf(definition, { owner_id: 'u-owner', trigger_type: 'manual', trigger: {} });
  await svc.runs.create(run, { status: 'running', leaseOwner: 'me', leaseSeconds: 60, events: [], receipts: [receipt('start', 1)] });
  const runRefused = await t.throwsAsync(sql.query(`UPDATE workflow_runs SET status = 'exploded' WHERE id = '${run.id}'`));
  t.regex(String((runRefused as { parent?: { message?: string } }).parent?.message ?? runRefused?.message), /workflow_run_status/);
  const receiptRefused = await t.throwsAsync(sql.query(`UPDATE workflow_step_receipts SET status = 'done' WHERE run_id = '${run.id}'`));
  t.regex(String((receiptRefused as { parent?: { message?: string } }).parent?.message ?? receiptRefused?.message), /workflow_receipt_status/);
  const [row] = await sql.query<{ status: string; receipt: string }>(
    `SELECT r.status, s.status AS receipt FROM workflow_runs r JOIN workflow_step_receipts s ON s.run_id = r.id WHERE r.id = '${run.id}'`,
    { type: QueryTypes.SELECT },
  );
  t.deepEqual(row, { status: 'running', receipt: 'completed' });
});

test('one commit batch applies each run\'s record in one statement; a record of another owner is skipped; two records of one run are never both claimed', async (t) => {
  const wf = await k.createWorkflow('owner-token', linearWorkflow('set based'));
  const definition = await svc.definitions.get('e-1', wf.id);
  const runs = [0, 1, 2].map(() => newRunOf(definition, { owner_id: 'u-owner', trigger_type: 'manual', trigger: {} }));
  const created = await Promise.all(runs.map((run) => svc.runs.create(run, { status: 'running', leaseOwner: 'me', leaseSeconds: 60, events: [{ type: 'run.started', data: {} }], receipts: [] })));
  const record = (run: (typeof runs)[number], n: number, receipts: ReceiptRow[], finish: boolean) => ({
    run_id: run.id, owner: 'me', entity_id: run.entity_id, n, status: finish ? 'completed' : null, output: finish ? { done: true } : null, error: null, pause: null, resume_at: null,
    receipts, events: Array.from({ length: n }, (_, i) => ({ type: 'step.finished', data: { i }, rel: i + 1 })),
  });
  const commit = (batch: unknown[]) =>
    sql.query<{ committed_run: string; new_seq: number }>('SELECT committed_run, new_seq FROM workflow_commit_runs(:batch::jsonb)', { replacements: { batch: JSON.stringify(batch) }, type: QueryTypes.SELECT });
  const rows = await commit([
    record(runs[0], 2, [receipt('b', 'b of 0'), receipt('a', null)], false),
    { ...record(runs[1], 1, [receipt('x', 'not mine')], false), owner: 'someone else' },
    record(runs[2], 1, [receipt('c', [1, 'two'])], true),
  ]);
  t.deepEqual(rows, [{ committed_run: runs[0].id, new_seq: created[0].seq + 2 }, { committed_run: runs[2].id, new_seq: created[2].seq + 1 }], 'in record order, without the record of another owner');
  const receipts = await sql.query<{ run_id: string; step_id: string; output: unknown }>(`SELECT run_id, step_id, output FROM workflow_step_receipts WHERE run_id = ANY($1::uuid[]) ORDER BY ord`, { bind: [runs.map((r) => r.id)], type: QueryTypes.SELECT });
  t.deepEqual(receipts, [{ run_id: runs[0].id, step_id: 'b', output: 'b of 0' }, { run_id: runs[0].id, step_id: 'a', output: null }, { run_id: runs[2].id, step_id: 'c', output: [1, 'two'] }]);
  const events = await sql.query<{ seq: number }>(`SELECT seq FROM workflow_run_events WHERE run_id = '${runs[0].id}' ORDER BY seq`, { type: QueryTypes.SELECT });
  t.deepEqual(events.map((e) => e.seq), [created[0].seq, created[0].seq + 1, created[0].seq + 2]);
  const [final] = await sql.query<{ status: string; output: unknown; seq: number }>(`SELECT status, output, seq FROM workflow_runs WHERE id = '${runs[2].id}'`, { type: QueryTypes.SELECT });
  t.deepEqual(final, { status: 'completed', output: { done: true }, seq: created[2].seq + 1 });

  // the group commit never sends two records of one run together; a caller that does gets one of
  // them applied, whole, and the other answered as not applied (never both claimed, never mixed)
  const twice = await commit([record(runs[0], 1, [receipt('d', 'first d')], false), record(runs[0], 1, [receipt('e', 'second e')], false)]);
  t.is(twice.length, 1);
  t.is(twice[0].new_seq, created[0].seq + 3);
  const added = await sql.query<{ step_id: string }>(`SELECT step_id FROM workflow_step_receipts WHERE run_id = '${runs[0].id}' AND step_id IN ('d', 'e')`, { type: QueryTypes.SELECT });
  t.is(added.length, 1);
});
