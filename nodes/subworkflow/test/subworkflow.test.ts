import test from 'ava';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';

const OWNER = 'owner-token';
let k: WorkflowsKernel;
let childId: string;
test.before(async () => {
  k = await startWorkflowsKernel('wf_subworkflow', { nodes: ['trigger', 'transform', 'wait', 'subworkflow', 'foreach_subworkflow'] });
  childId = (
    await k.createWorkflow(OWNER, {
      name: 'child',
      steps: [
        { id: 'start', type: 'trigger', next: ['shape'] },
        { id: 'shape', type: 'transform', config: { set: { got: '{{trigger.n}}', tag: 'child' } }, next: [] },
      ],
    })
  ).id;
});
test.after.always(async () => k?.close());

async function run(workflowId: string, input: unknown = {}): Promise<any> {
  const started = await k.call(`/api/v1/workflows/${workflowId}/run`, { method: 'POST', token: OWNER, json: { input } });
  if (started.status !== 202) throw new Error(`run start answered ${started.status}: ${started.text}`);
  return runUntil(k, OWNER, started.body.run_id, ['paused', 'failed', 'completed'], 60_000);
}

async function family(runId: string): Promise<any> {
  const res = await k.call(`/api/v1/workflows/runs/${runId}/family`, { token: OWNER });
  if (res.status !== 200) throw new Error(`family of ${runId} answered ${res.status}: ${res.text}`);
  return res.body;
}

test('subworkflow: the child runs with the given input, its output is the step output, linked in trace and family', async (t) => {
  const parent = await k.createWorkflow(OWNER, {
    name: 'parent',
    steps: [
      { id: 'start', type: 'trigger', next: ['sub'] },
      { id: 'sub', type: 'subworkflow', config: { workflow_id: childId, input: { n: '{{trigger.n}}' } }, next: [] },
    ],
  });
  const done = await run(parent.id, { n: 7 });
  t.is(done.status, 'completed', JSON.stringify(done.error));
  const sub = receipt(done, 'sub');
  t.deepEqual(sub.output, { got: 7, tag: 'child' });
  t.is(sub.child_runs.length, 1);
  const childRunId = sub.child_runs[0];
  const f = await family(done.id);
  t.like(f.children[0], { run_id: childRunId, parent_run_id: done.id, parent_step_id: 'sub', item_index: 0, depth: 1, status: 'completed', workflow_id: childId });
  t.is(f.parent, null);
  const child = await family(childRunId);
  t.like(child.parent, { parent_run_id: done.id, parent_step_id: 'sub', depth: 1 });
  const childRun = (await k.call(`/api/v1/workflows/runs/${childRunId}`, { token: OWNER })).body;
  t.is(childRun.trigger_type, 'subworkflow');
  t.is((await k.call(`/api/v1/workflows/runs/${childRunId}`, { token: 'other-token' })).status, 404, "another entity cannot read the child");
});

test("a foreign entity's workflow is not found: the step fails, no child starts", async (t) => {
  const foreign = await k.call('/api/v1/workflows', { method: 'POST', token: 'other-token', json: { name: 'theirs', steps: [{ id: 'start', type: 'trigger', next: [] }] } });
  t.is(foreign.status, 201);
  const parent = await k.createWorkflow(OWNER, {
    name: 'reaches out',
    steps: [
      { id: 'start', type: 'trigger', next: ['sub'] },
      { id: 'sub', type: 'subworkflow', config: { workflow_id: foreign.body.id }, next: [] },
    ],
  });
  const done = await run(parent.id);
  t.is(done.status, 'failed');
  t.is(receipt(done, 'sub').error.code, 'CHILD_WORKFLOW_NOT_FOUND');
  t.deepEqual((await family(done.id)).children, []);
});

test('depth is capped: a workflow calling itself stops at depth 5 and fails up the chain', async (t) => {
  const self = await k.createWorkflow(OWNER, { name: 'self', steps: [{ id: 'start', type: 'trigger', next: [] }] });
  const put = await k.call(`/api/v1/workflows/${self.id}`, {
    method: 'PUT',
    token: OWNER,
    json: { name: 'self', steps: [{ id: 'start', type: 'trigger', next: ['again'] }, { id: 'again', type: 'subworkflow', config: { workflow_id: self.id }, next: [] }] },
  });
  t.is(put.status, 200, put.text);
  const done = await run(self.id);
  t.is(done.status, 'failed');
  t.is(receipt(done, 'again').error.code, 'CHILD_FAILED');
  const depths: number[] = [];
  for (let id = done.id, f = await family(id); f.children.length; id = f.children[0].run_id, f = await family(id)) depths.push(f.children[0].depth);
  t.deepEqual(depths, [1, 2, 3, 4, 5]);
});

test('foreach_subworkflow: one child per element, results in element order, each linked with its index', async (t) => {
  const parent = await k.createWorkflow(OWNER, {
    name: 'fan out',
    steps: [
      { id: 'start', type: 'trigger', next: ['each'] },
      { id: 'each', type: 'foreach_subworkflow', config: { workflow_id: childId, items: '{{trigger.list}}', concurrency: 2 }, next: [] },
    ],
  });
  const done = await run(parent.id, { list: [{ n: 3 }, { n: 1 }, { n: 2 }] });
  t.is(done.status, 'completed', JSON.stringify(done.error));
  const out = receipt(done, 'each').output;
  t.deepEqual(out.results.map((r: { got: number }) => r.got), [3, 1, 2]);
  t.is(out.failed, 0);
  const f = await family(done.id);
  t.deepEqual(f.children.map((c: { item_index: number }) => c.item_index).sort(), [0, 1, 2]);
  for (const c of f.children) t.is(c.run_id, out.runs[c.item_index].run_id);
});

test('a paused child keeps the parent step waiting; a forged continuation cannot adopt a run', async (t) => {
  const waiting = await k.createWorkflow(OWNER, {
    name: 'needs approval',
    steps: [
      { id: 'start', type: 'trigger', next: ['ok'] },
      { id: 'ok', type: 'wait', config: { wait_type: 'approval' }, next: [] },
    ],
  });
  const parent = await k.createWorkflow(OWNER, {
    name: 'parent of waiting',
    steps: [
      { id: 'start', type: 'trigger', next: ['sub'] },
      { id: 'sub', type: 'subworkflow', config: { workflow_id: waiting.id }, next: [] },
    ],
  });
  const started = await k.call(`/api/v1/workflows/${parent.id}/run`, { method: 'POST', token: OWNER, json: { input: {} } });
  const parentRunId = started.body.run_id;
  let f: any;
  for (let i = 0; i < 1200 && !(f?.children?.[0]?.status === 'paused'); i++) {
    f = await family(parentRunId);
    await new Promise((r) => setTimeout(r, 50));
  }
  t.is(f.children[0].status, 'paused');
  const childRunId = f.children[0].run_id;
  t.is((await k.call(`/api/v1/workflows/runs/${parentRunId}`, { token: OWNER })).body.status, 'running');

  const meta = { user: { id: 'u-owner', entity_id: 'e-1', role: 'member' } };
  const plan: any = await k.kernel.broker.call('workflows.childPlan', { run_id: parentRunId, step_id: 'sub', workflow_id: waiting.id }, { meta });
  const unrelated = await run(childId, { n: 1 });
  const forge = (extra: Record<string, unknown>) =>
    t.throwsAsync(k.kernel.broker.call('workflows.startChildRun', { run_id: parentRunId, step_id: 'sub', child_run_id: childRunId, item_index: 0, workflow_id: waiting.id, version: plan.version, snapshot_hash: plan.snapshot_hash, input: {}, ...extra }, { meta })) as Promise<any>;
  t.is((await forge({ child_run_id: unrelated.id })).code, 409, 'an existing run that is not a child');
  t.is((await forge({ snapshot_hash: 'f'.repeat(64) })).code, 409, 'another snapshot');
  t.is((await forge({ item_index: 1 })).code, 409, 'another item');
  const again: any = await k.kernel.broker.call('workflows.startChildRun', { run_id: parentRunId, step_id: 'sub', child_run_id: childRunId, item_index: 0, workflow_id: waiting.id, version: plan.version, snapshot_hash: plan.snapshot_hash, input: {} }, { meta });
  t.like(again, { run_id: childRunId, created: false }, 'the continuation\'s own child is found again, never started twice');
  t.is(((await k.kernel.broker.call('workflows.childPlan', { run_id: parentRunId, step_id: 'sub', workflow_id: waiting.id }, { meta: { user: { id: 'u-other', entity_id: 'e-2', role: 'member' } } })
    .catch((e: { code?: number }) => e)) as { code?: number }).code, 404, 'another entity');

  const resumed = await k.call(`/api/v1/workflows/runs/${childRunId}/resume`, { method: 'POST', token: OWNER, json: { decision: 'approve' } });
  t.is(resumed.status, 200, resumed.text);
  const done = await runUntil(k, OWNER, parentRunId, ['completed', 'failed'], 60_000);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual(receipt(done, 'sub').child_runs, [childRunId], 'still the one child');
});

test('cancelling the parent cancels the child it waits for', async (t) => {
  const waiting = await k.createWorkflow(OWNER, {
    name: 'waits forever',
    steps: [
      { id: 'start', type: 'trigger', next: ['ok'] },
      { id: 'ok', type: 'wait', config: { wait_type: 'approval' }, next: [] },
    ],
  });
  const parent = await k.createWorkflow(OWNER, {
    name: 'cancelled parent',
    steps: [
      { id: 'start', type: 'trigger', next: ['each'] },
      { id: 'each', type: 'foreach_subworkflow', config: { workflow_id: waiting.id, items: [1, 2] }, next: [] },
    ],
  });
  const started = await k.call(`/api/v1/workflows/${parent.id}/run`, { method: 'POST', token: OWNER, json: { input: {} } });
  const parentRunId = started.body.run_id;
  let f: any;
  for (let i = 0; i < 1200 && !(f?.children?.length === 2 && f.children.every((c: { status: string }) => c.status === 'paused')); i++) {
    f = await family(parentRunId);
    await new Promise((r) => setTimeout(r, 50));
  }
  t.is(f.children.length, 2);
  t.is((await k.call(`/api/v1/workflows/runs/${parentRunId}/cancel`, { method: 'POST', token: OWNER })).status, 200);
  for (const c of f.children) t.is((await runUntil(k, OWNER, c.run_id, ['cancelled'], 60_000)).status, 'cancelled');
});

test('config.timeout bounds the wait for a child: the step fails with STEP_TIMEOUT', async (t) => {
  const waiting = await k.createWorkflow(OWNER, {
    name: 'never approved',
    steps: [
      { id: 'start', type: 'trigger', next: ['ok'] },
      { id: 'ok', type: 'wait', config: { wait_type: 'approval' }, next: [] },
    ],
  });
  const parent = await k.createWorkflow(OWNER, {
    name: 'impatient parent',
    steps: [
      { id: 'start', type: 'trigger', next: ['sub'] },
      { id: 'sub', type: 'subworkflow', config: { workflow_id: waiting.id, timeout: 1 }, next: [] },
    ],
  });
  const done = await run(parent.id);
  t.is(done.status, 'failed');
  t.is(receipt(done, 'sub').error.code, 'STEP_TIMEOUT');
});

test("a retry of a parent whose child failed starts a child of its own (the carried continuation is the failed run's)", async (t) => {
  const gated = await k.createWorkflow(OWNER, {
    name: 'gated child',
    steps: [
      { id: 'start', type: 'trigger', next: ['ok'] },
      { id: 'ok', type: 'wait', config: { wait_type: 'approval' }, next: [] },
    ],
  });
  const parent = await k.createWorkflow(OWNER, {
    name: 'retried parent',
    steps: [
      { id: 'start', type: 'trigger', next: ['sub'] },
      { id: 'sub', type: 'subworkflow', config: { workflow_id: gated.id }, next: [] },
    ],
  });
  const childOf = async (runId: string): Promise<string> => {
    let f: any;
    for (let i = 0; i < 1200 && !(f?.children ?? []).some((c: { parent_run_id: string; status: string }) => c.parent_run_id === runId && c.status === 'paused'); i++) {
      f = await family(runId);
      await new Promise((r) => setTimeout(r, 50));
    }
    return f.children.find((c: { parent_run_id: string }) => c.parent_run_id === runId).run_id;
  };
  const started = await k.call(`/api/v1/workflows/${parent.id}/run`, { method: 'POST', token: OWNER, json: { input: {} } });
  const firstChild = await childOf(started.body.run_id);
  await k.call(`/api/v1/workflows/runs/${firstChild}/resume`, { method: 'POST', token: OWNER, json: { decision: 'reject' } });
  const failed = await runUntil(k, OWNER, started.body.run_id, ['failed', 'completed'], 60_000);
  t.is(receipt(failed, 'sub').error.code, 'CHILD_FAILED');
  const retry = await k.call(`/api/v1/workflows/runs/${failed.id}/retry`, { method: 'POST', token: OWNER, json: {} });
  t.is(retry.status, 202, retry.text);
  const secondChild = await childOf(retry.body.run_id);
  t.not(secondChild, firstChild);
  await k.call(`/api/v1/workflows/runs/${secondChild}/resume`, { method: 'POST', token: OWNER, json: { decision: 'approve' } });
  const done = await runUntil(k, OWNER, retry.body.run_id, ['failed', 'completed'], 60_000);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  const lineage = await family(retry.body.run_id);
  t.deepEqual(lineage.children.map((c: { run_id: string }) => c.run_id).sort(), [firstChild, secondChild].sort());
});
