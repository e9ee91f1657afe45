import test from 'ava';
import { ServiceBroker } from 'moleculer';
import subworkflow from '../index.ts';
import foreach from '../../foreach_subworkflow/index.ts';
import { continuationProblem, type Continuation } from '../../../kernel/nodes/child-runs.ts';

const WF = '0190b3a2-7c1e-7d4a-9f1b-2c3d4e5f6a7b';
const HASH = 'a'.repeat(64);

/**
 * A stand-in for the workflows package's child-run actions, recording the order of calls: the
 * node's own logic (continuation first, no replay, bounded concurrency, ordered results) is
 * tested here; the real actions in test/workflows-subworkflow.test.ts.
 */
function fakeWorkflows(state: { linked: { run_id: string; item_index: number; snapshot_hash: string }[]; log: string[]; running: number; maxRunning: number; outputs: Map<string, unknown> }) {
  return {
    name: 'workflows',
    actions: {
      childRuns: () => ({ children: state.linked }),
      childPlan: (ctx: { params: { workflow_id: string } }) => {
        if (ctx.params.workflow_id !== WF) throw Object.assign(new Error(`No workflow with id '${ctx.params.workflow_id}'.`), { code: 404 });
        return { workflow_id: WF, version: 3, snapshot_hash: HASH, depth: 1 };
      },
      checkpoint: (ctx: { params: { key: string } }) => {
        state.log.push(`checkpoint:${ctx.params.key}`);
        return { stop: false };
      },
      startChildRun: (ctx: { params: { child_run_id: string; item_index: number; input: unknown } }) => {
        state.log.push(`start:${ctx.params.item_index}`);
        state.running += 1;
        state.maxRunning = Math.max(state.maxRunning, state.running);
        state.outputs.set(ctx.params.child_run_id, { echoed: ctx.params.input });
        return { run_id: ctx.params.child_run_id, status: 'running' };
      },
      async awaitRun(ctx: { params: { run_id: string } }) {
        // children finish in reverse order of start, one per turn of the event loop
        await new Promise((r) => setImmediate(r));
        state.running -= 1;
        return { id: ctx.params.run_id, status: 'completed', output: state.outputs.get(ctx.params.run_id), error: null };
      },
    },
  };
}

async function broker(state: Parameters<typeof fakeWorkflows>[0]) {
  const b = new ServiceBroker({ logger: false, nodeID: `sub-${process.pid}-${Math.random()}` });
  b.createService(subworkflow as never);
  b.createService(foreach as never);
  b.createService(fakeWorkflows(state) as never);
  await b.start();
  return b;
}

const fresh = () => ({ linked: [] as { run_id: string; item_index: number; snapshot_hash: string }[], log: [] as string[], running: 0, maxRunning: 0, outputs: new Map<string, unknown>() });
const context = (extra: Record<string, unknown> = {}) => ({ run_id: 'r-1', step_id: 'sub', entity_id: 'e-1', workspace_id: null, attempt: 1, engine_node: undefined, checkpoints: [], ...extra });

test('first run: the continuation commits before the child starts; the output is the child output', async (t) => {
  const state = fresh();
  const b = await broker(state);
  const r: any = await b.call('node.subworkflow.execute', { config: { workflow_id: WF, input: { n: 1 } }, input: null, context: context({ engine_node: b.nodeID }) });
  t.deepEqual(state.log, ['checkpoint:continuation', 'start:0']);
  t.deepEqual(r.output, { echoed: { n: 1 } });
  t.is(r.child_runs.length, 1);
  await b.stop();
});

test('linked children without a continuation: CONTINUATION_MISSING, nothing started', async (t) => {
  const state = fresh();
  state.linked.push({ run_id: 'c-0', item_index: 0, snapshot_hash: HASH });
  const b = await broker(state);
  const err: any = await t.throwsAsync(b.call('node.subworkflow.execute', { config: { workflow_id: WF }, input: null, context: context({ engine_node: b.nodeID }) }));
  t.is(err.type, 'CONTINUATION_MISSING');
  t.deepEqual(state.log, [], 'no checkpoint, no child');
  await b.stop();
});

test('a forged or mismatching continuation: CONTINUATION_MISMATCH, nothing replayed', async (t) => {
  const state = fresh();
  state.linked.push({ run_id: 'c-real', item_index: 0, snapshot_hash: HASH });
  const b = await broker(state);
  const forged: Continuation = { run_id: 'r-1', step_id: 'sub', workflow_id: WF, version: 3, snapshot_hash: HASH, child_run_ids: ['c-forged'] };
  const checkpoints = [{ key: 'continuation', status: 'completed', output: forged, error: null, uncertain: false, started_at: null, finished_at: null }];
  const err: any = await t.throwsAsync(b.call('node.subworkflow.execute', { config: { workflow_id: WF }, input: null, context: context({ engine_node: b.nodeID, checkpoints }) }));
  t.is(err.type, 'CONTINUATION_MISMATCH');
  t.deepEqual(state.log, []);
  await b.stop();
});

test('a matching continuation on resume: the same child is awaited, no new continuation', async (t) => {
  const state = fresh();
  state.linked.push({ run_id: 'c-0', item_index: 0, snapshot_hash: HASH });
  state.outputs.set('c-0', 'done before');
  const b = await broker(state);
  const saved: Continuation = { run_id: 'r-1', step_id: 'sub', workflow_id: WF, version: 3, snapshot_hash: HASH, child_run_ids: ['c-0'] };
  const checkpoints = [{ key: 'continuation', status: 'completed', output: saved, error: null, uncertain: false, started_at: null, finished_at: null }];
  const r: any = await b.call('node.subworkflow.execute', { config: { workflow_id: WF }, input: null, context: context({ engine_node: b.nodeID, checkpoints }) });
  t.deepEqual(state.log, ['start:0'], 'startChildRun with the pinned id finds the child again (the real action creates nothing twice)');
  t.deepEqual(r.child_runs, ['c-0']);
  await b.stop();
});

test("a continuation carried over from another run (a retry) is that run's: new children are started", async (t) => {
  const state = fresh();
  const b = await broker(state);
  const carried: Continuation = { run_id: 'r-0', step_id: 'sub', workflow_id: WF, version: 3, snapshot_hash: HASH, child_run_ids: ['c-old'] };
  const checkpoints = [{ key: 'continuation', status: 'completed', output: carried, error: null, uncertain: false, started_at: null, finished_at: null }];
  const r: any = await b.call('node.subworkflow.execute', { config: { workflow_id: WF }, input: null, context: context({ engine_node: b.nodeID, checkpoints }) });
  t.deepEqual(state.log, ['checkpoint:continuation', 'start:0']);
  t.not(r.child_runs[0], 'c-old');
  await b.stop();
});

test('foreach: at most `concurrency` children at once; results in element order', async (t) => {
  const state = fresh();
  const b = await broker(state);
  const r: any = await b.call('node.foreach_subworkflow.execute', { config: { workflow_id: WF, items: [5, 6, 7, 8, 9], concurrency: 2 }, input: null, context: context({ step_id: 'each', engine_node: b.nodeID }) });
  t.is(state.maxRunning, 2);
  t.deepEqual(r.output.results.map((o: { echoed: number }) => o.echoed), [5, 6, 7, 8, 9]);
  t.is(r.output.failed, 0);
  t.is(state.log[0], 'checkpoint:continuation');
  await b.stop();
});

test('bad input: a foreign or unknown workflow, a non-list, a bad id, no run context', async (t) => {
  const state = fresh();
  const b = await broker(state);
  const call = (type: string, config: Record<string, unknown>, input: unknown = null, ctx = context({ engine_node: b.nodeID })) => t.throwsAsync(b.call(`node.${type}.execute`, { config, input, context: ctx })) as Promise<any>;
  t.is((await call('subworkflow', { workflow_id: '0190b3a2-7c1e-7d4a-9f1b-000000000000' })).type, 'CHILD_WORKFLOW_NOT_FOUND');
  t.is((await call('subworkflow', { workflow_id: 'nope' })).type, 'BAD_CONFIG');
  t.is((await call('foreach_subworkflow', { workflow_id: WF }, 'not a list')).type, 'BAD_INPUT');
  t.is((await call('subworkflow', { workflow_id: WF }, null, context())).type, 'NO_RUN_CONTEXT');
  t.deepEqual(state.log, []);
  await b.stop();
});

test('continuationProblem names what does not fit', (t) => {
  const c: Continuation = { run_id: 'r-1', step_id: 's', workflow_id: WF, version: 1, snapshot_hash: HASH, child_run_ids: ['a', 'b'] };
  t.is(continuationProblem(c, 's', WF, 2, [{ run_id: 'a', item_index: 0, snapshot_hash: HASH }]), undefined);
  t.regex(continuationProblem(c, 'other', WF, 2, [])!, /belongs to step/);
  t.regex(continuationProblem(c, 's', WF, 3, [])!, /names 2 child/);
  t.regex(continuationProblem(c, 's', WF, 2, [{ run_id: 'b', item_index: 0, snapshot_hash: HASH }])!, /not where/);
  t.regex(continuationProblem(c, 's', WF, 2, [{ run_id: 'a', item_index: 0, snapshot_hash: 'b'.repeat(64) }])!, /another snapshot/);
  t.regex(continuationProblem({ child_run_ids: 'x' }, 's', WF, 2, [])!, /malformed/);
});
