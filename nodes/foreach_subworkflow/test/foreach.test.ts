import test from 'ava';
import { ServiceBroker } from 'moleculer';
import foreach, { MAX_CHILDREN } from '../index.ts';

// The node's own logic against a stand-in for the workflows package's child-run actions; the
// real actions (links, family, cancel, timeout) are in nodes/subworkflow/test/subworkflow.test.ts.
const WF = '0190b3a2-7c1e-7d4a-9f1b-2c3d4e5f6a7b';

interface FakeState {
  started: unknown[];
  running: number;
  maxRunning: number;
  inputs: Map<string, unknown>;
}

/** Children echo their input; an input `{fail: true}` makes its child fail. */
function fakeWorkflows(state: FakeState) {
  return {
    name: 'workflows',
    actions: {
      childRuns: () => ({ children: [] }),
      childPlan: () => ({ workflow_id: WF, version: 1, snapshot_hash: 'b'.repeat(64), depth: 1 }),
      checkpoint: () => ({ stop: false }),
      startChildRun: (ctx: { params: { child_run_id: string; input: unknown } }) => {
        state.started.push(ctx.params.input);
        state.running += 1;
        state.maxRunning = Math.max(state.maxRunning, state.running);
        state.inputs.set(ctx.params.child_run_id, ctx.params.input);
        return { run_id: ctx.params.child_run_id, status: 'running' };
      },
      async awaitRun(ctx: { params: { run_id: string } }) {
        await new Promise((r) => setImmediate(r));
        state.running -= 1;
        const input = state.inputs.get(ctx.params.run_id) as { fail?: boolean } | null;
        if (input && typeof input === 'object' && input.fail) return { id: ctx.params.run_id, status: 'failed', output: null, error: { message: 'the child said no', code: 'NO' } };
        return { id: ctx.params.run_id, status: 'completed', output: { echoed: input }, error: null };
      },
    },
  };
}

async function withBroker(run: (call: (config: Record<string, unknown>, input?: unknown) => Promise<any>, state: FakeState) => Promise<void>): Promise<void> {
  const state: FakeState = { started: [], running: 0, maxRunning: 0, inputs: new Map() };
  const b = new ServiceBroker({ logger: false, nodeID: `foreach-${process.pid}-${Math.random()}` });
  b.createService(foreach as never);
  b.createService(fakeWorkflows(state) as never);
  await b.start();
  const context = { run_id: 'r-1', step_id: 'each', entity_id: 'e-1', workspace_id: null, attempt: 1, engine_node: b.nodeID, checkpoints: [] };
  try {
    await run((config, input = null) => b.call('node.foreach_subworkflow.execute', { config: { workflow_id: WF, ...config }, input, context }), state);
  } finally {
    await b.stop();
  }
}

test('items missing or null: the step input is the list; one child per element, at most concurrency at once, results in element order', async (t) => {
  await withBroker(async (call, state) => {
    const r = await call({ items: null, concurrency: 3 }, [1, 2, 3, 4, 5, 6, 7]);
    t.deepEqual(r.output.results, [1, 2, 3, 4, 5, 6, 7].map((n) => ({ echoed: n })));
    t.is(state.maxRunning, 3);
    t.is(r.output.failed, 0);
    t.is(r.child_runs.length, 7);
    t.deepEqual(r.output.runs.map((c: { run_id: string }) => c.run_id), r.child_runs);
    const given = await call({ items: ['a', 'b'] }, 'the input is not read when items are given');
    t.deepEqual(given.output.results, [{ echoed: 'a' }, { echoed: 'b' }]);
  });
});

test('on_child_failure fail: a failed child fails the step with CHILD_FAILED naming it', async (t) => {
  await withBroker(async (call) => {
    const err: any = await t.throwsAsync(call({ items: [{ n: 1 }, { fail: true }, { n: 3 }] }));
    t.is(err.type, 'CHILD_FAILED');
    t.regex(err.message, /1 of 3 child runs did not complete; run \S+ failed: the child said no/);
    t.is(err.data.child_run_ids.length, 1);
  });
});

test('on_child_failure continue: the failed child gives null, its entry in runs says failed, the step completes', async (t) => {
  await withBroker(async (call) => {
    const r = await call({ items: [{ n: 1 }, { fail: true }, { n: 3 }], on_child_failure: 'continue' });
    t.deepEqual(r.output.results, [{ echoed: { n: 1 } }, null, { echoed: { n: 3 } }]);
    t.deepEqual(r.output.runs.map((c: { status: string }) => c.status), ['completed', 'failed', 'completed']);
    t.is(r.output.failed, 1);
  });
});

test('too many elements or not a list: BAD_INPUT before any child starts', async (t) => {
  await withBroker(async (call, state) => {
    const tooMany: any = await t.throwsAsync(call({}, Array.from({ length: MAX_CHILDREN + 1 }, (_, i) => i)));
    t.is(tooMany.type, 'BAD_INPUT');
    t.regex(tooMany.message, new RegExp(`${MAX_CHILDREN + 1} elements`));
    t.is(((await t.throwsAsync(call({}, { rows: [] }))) as any).type, 'BAD_INPUT');
    t.is(((await t.throwsAsync(call({ concurrency: 0, items: [1] }))) as any).type, 'BAD_CONFIG');
    t.deepEqual(state.started, []);
  });
});
