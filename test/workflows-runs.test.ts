import test from 'ava';
import { compileWithAjv } from './openapi-ajv.ts';
import { RUN_SCHEMA } from '../plugins/workflows/schemas.ts';
import { linearWorkflow, receipt, runUntil, SLEEP_NODE, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_runs', { extra: { 'test-node-sleep': SLEEP_NODE } });
});
test.after.always(async () => {
  await k?.close();
});

async function run(workflowId: string, body: Record<string, unknown>, token = 'owner-token') {
  return k.call(`/api/v1/workflows/${workflowId}/run`, { method: 'POST', token, json: body });
}

test('a manual run answers 202 at once, then completes with templates resolved against committed outputs', async (t) => {
  const wf = await k.createWorkflow('owner-token', linearWorkflow('manual'));
  const started = await run(wf.id, { input: { name: 'ada' }, variables: { region: 'us' } });
  t.is(started.status, 202, started.text);
  t.regex(started.body.run_id, /^[0-9a-f-]{36}$/);
  t.true(['pending', 'running', 'completed'].includes(started.body.status));
  const done = await runUntil(k, 'owner-token', started.body.run_id, ['completed']);
  t.deepEqual(receipt(done, 'shape').output, { greeting: 'hello ada', raw: { name: 'ada' }, region: 'us' });
  t.deepEqual(done.output, { greeting: 'hello ada', raw: { name: 'ada' }, region: 'us' });
  t.deepEqual(receipt(done, 'start').input, { name: 'ada' }, "the entry step's input is the trigger");
  t.deepEqual(receipt(done, 'finish').input, receipt(done, 'shape').output, "a step's input is its parent's output");
  t.deepEqual(done.steps.map((s: { step_id: string; status: string }) => `${s.step_id}:${s.status}`), ['start:completed', 'shape:completed', 'finish:completed']);
  t.is(done.trigger_type, 'manual');
  t.is(done.owner_id, 'u-owner');
});

test('wait: true answers the finished run; later edits do not touch its snapshot', async (t) => {
  const wf = await k.createWorkflow('owner-token', linearWorkflow('snapshot'));
  const first = await run(wf.id, { input: { name: 'bo' }, wait: true });
  t.is(first.status, 200, first.text);
  t.is(first.body.status, 'completed');
  t.is(first.body.output.greeting, 'hello bo');
  const edited = linearWorkflow('snapshot');
  (edited.steps as any[])[1].config.set.greeting = 'bye {{trigger.name}}';
  t.is((await k.call(`/api/v1/workflows/${wf.id}`, { method: 'PUT', token: 'owner-token', json: edited })).status, 200);
  const old = await k.call(`/api/v1/workflows/runs/${first.body.run_id}`, { token: 'owner-token' });
  t.is(old.body.snapshot.version, 1);
  t.is(old.body.snapshot.steps[1].config.set.greeting, 'hello {{trigger.name}}');
  t.true(compileWithAjv(RUN_SCHEMA)(old.body), 'the run, its snapshot included, matches its declared schema');
  t.false(compileWithAjv(RUN_SCHEMA)({ ...old.body, snapshot: { steps: [] } }), 'a snapshot missing its fields does not');
  const second = await run(wf.id, { input: { name: 'bo' }, wait: true });
  t.is(second.body.output.greeting, 'bye bo');
  t.is(second.body.workflow_version, 2);
});

test('condition follows one branch and skips the other; a merge waits only for branches taken', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'branches',
    steps: [
      { id: 'start', type: 'trigger', next: ['check'] },
      { id: 'check', type: 'condition', config: { expression: '{{trigger.amount}}', operator: 'gt', value: 100, branches: { true: 'big', false: 'small' } }, next: ['big', 'small'] },
      { id: 'big', type: 'transform', config: { set: { size: 'big' } }, next: ['join'] },
      { id: 'small', type: 'transform', config: { set: { size: 'small' } }, next: ['join'] },
      { id: 'join', type: 'merge', config: {}, next: ['after'] },
      { id: 'after', type: 'transform', config: { set: { joined: '{{join.output}}' } }, next: [] },
      { id: 'memo', type: 'note', config: { text: 'not executed' }, next: [] },
    ],
  });
  const big = await run(wf.id, { input: { amount: 500 }, wait: true });
  t.is(big.body.status, 'completed', big.text);
  const detail = await k.call(`/api/v1/workflows/runs/${big.body.run_id}`, { token: 'owner-token' });
  t.is(receipt(detail.body, 'big').status, 'completed');
  t.is(receipt(detail.body, 'small').status, 'skipped');
  t.deepEqual(receipt(detail.body, 'join').output, { big: { size: 'big' } });
  t.deepEqual(receipt(detail.body, 'join').input, { size: 'big' }, 'one active parent: its output');
  t.deepEqual(receipt(detail.body, 'after').output, { joined: { big: { size: 'big' } } });
  t.is(receipt(detail.body, 'memo'), undefined);
  const small = await run(wf.id, { input: { amount: '7' }, wait: true });
  t.deepEqual(small.body.output, { joined: { small: { size: 'small' } } });
});

test('switch picks the matching case or the default', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'switch',
    steps: [
      { id: 'start', type: 'trigger', next: ['route'] },
      { id: 'route', type: 'switch', config: { value: '{{trigger.kind}}', cases: [{ equals: 'a', next: 'ra' }, { equals: 'b', next: 'rb' }], default: 'other' }, next: ['ra', 'rb', 'other'] },
      { id: 'ra', type: 'end', config: { output: 'A' } },
      { id: 'rb', type: 'end', config: { output: 'B' } },
      { id: 'other', type: 'end', config: { output: 'other' } },
    ],
  });
  t.is((await run(wf.id, { input: { kind: 'b' }, wait: true })).body.output, 'B');
  t.is((await run(wf.id, { input: { kind: 'z' }, wait: true })).body.output, 'other');
});

test('parallel branches run concurrently and the merge gets both outputs', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'parallel',
    steps: [
      { id: 'start', type: 'trigger', next: ['fan'] },
      { id: 'fan', type: 'parallel', next: ['left', 'right'] },
      { id: 'left', type: 'wait', config: { wait_type: 'timer', seconds: 0.3 }, next: ['join'] },
      { id: 'right', type: 'wait', config: { wait_type: 'timer', seconds: 0.3 }, next: ['join'] },
      { id: 'join', type: 'merge', config: { mode: 'array' }, next: [] },
    ],
  });
  const res = await run(wf.id, { input: {}, wait: true });
  t.is(res.body.status, 'completed', res.text);
  const detail = (await k.call(`/api/v1/workflows/runs/${res.body.run_id}`, { token: 'owner-token' })).body;
  t.deepEqual(receipt(detail, 'join').output, [{ waited_seconds: 0.3 }, { waited_seconds: 0.3 }]);
  const left = receipt(detail, 'left');
  const right = receipt(detail, 'right');
  // concurrent: each started before the other finished
  t.true(Date.parse(left.started_at) < Date.parse(right.finished_at) && Date.parse(right.started_at) < Date.parse(left.finished_at));
});

test('stop with fail finishes the run as failed; end finishes it with its output; later steps do not run', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'stop',
    steps: [
      { id: 'start', type: 'trigger', next: ['check'] },
      { id: 'check', type: 'condition', config: { expression: '{{trigger.bad}}', branches: { true: 'halt', false: 'done' } }, next: ['halt', 'done'] },
      { id: 'halt', type: 'stop', config: { fail: true, message: 'bad input' }, next: ['never'] },
      { id: 'never', type: 'transform', config: { set: {} }, next: [] },
      { id: 'done', type: 'end', config: { output: { fine: true } } },
    ],
  });
  const bad = await run(wf.id, { input: { bad: true }, wait: true });
  t.is(bad.body.status, 'failed');
  t.is(bad.body.error.message, 'bad input');
  const detail = (await k.call(`/api/v1/workflows/runs/${bad.body.run_id}`, { token: 'owner-token' })).body;
  t.is(receipt(detail, 'never'), undefined);
  const good = await run(wf.id, { input: { bad: false }, wait: true });
  t.is(good.body.status, 'completed');
  t.deepEqual(good.body.output, { fine: true });
});

test('a failing step fails the run with its error; the trace names it', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'failing',
    steps: [
      { id: 'start', type: 'trigger', next: ['call'] },
      { id: 'call', type: 'http', config: { url: 'http://127.0.0.1:9/never' }, next: [] },
    ],
  });
  const res = await run(wf.id, { input: {}, wait: true });
  t.is(res.body.status, 'failed');
  t.is(res.body.error.step_id, 'call');
  const detail = (await k.call(`/api/v1/workflows/runs/${res.body.run_id}`, { token: 'owner-token' })).body;
  t.is(receipt(detail, 'call').status, 'failed');
  t.regex(receipt(detail, 'call').error.message, /loopback/);
});

test('secrets are scrubbed from the trace by key and by value', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'secrets',
    steps: [
      { id: 'start', type: 'trigger', next: ['shape'] },
      { id: 'shape', type: 'transform', config: { set: { note: 'key is {{api_key}}', api_token: 'abc', big: '{{trigger.big}}' } }, next: [] },
    ],
    variables: { api_key: 'sk-very-secret-value' },
  });
  const res = await run(wf.id, { input: { big: 'y'.repeat(40_000) }, wait: true });
  const detail = (await k.call(`/api/v1/workflows/runs/${res.body.run_id}`, { token: 'owner-token' })).body;
  const text = JSON.stringify(detail.steps);
  t.false(text.includes('sk-very-secret-value'));
  const output = receipt(detail, 'shape').output;
  t.is(output.summarised, true);
  t.true(output.bytes > 40_000);
});

test('runs are listed with filters, and another entity sees none of them', async (t) => {
  const wf = await k.createWorkflow('owner-token', linearWorkflow('listed'));
  const res = await run(wf.id, { input: { name: 'x' }, wait: true });
  const list = await k.call(`/api/v1/workflows/runs?workflow_id=${wf.id}`, { token: 'member-token' });
  t.is(list.status, 200, list.text);
  t.deepEqual(list.body.items.map((r: { id: string }) => r.id), [res.body.run_id]);
  t.is((await k.call(`/api/v1/workflows/runs?status=failed&workflow_id=${wf.id}`, { token: 'owner-token' })).body.total, 0);
  t.is((await k.call(`/api/v1/workflows/runs/${res.body.run_id}`, { token: 'other-token' })).status, 404);
  t.is((await k.call(`/api/v1/workflows/runs?workflow_id=${wf.id}`, { token: 'other-token' })).body.total, 0);
  t.is((await run(wf.id, { input: {} }, 'other-token')).status, 404);
  t.is((await k.call(`/api/v1/workflows/runs/${res.body.run_id}/cancel`, { method: 'POST', token: 'other-token' })).status, 404);
});

test('cancel works from paused and is refused for a finished run', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'cancel',
    steps: [
      { id: 'start', type: 'trigger', next: ['hold'] },
      { id: 'hold', type: 'wait', config: { wait_type: 'event', event: 'go' }, next: [] },
    ],
  });
  const res = await run(wf.id, { input: {}, wait: true });
  t.is(res.body.status, 'paused');
  const cancelled = await k.call(`/api/v1/workflows/runs/${res.body.run_id}/cancel`, { method: 'POST', token: 'member-token' });
  t.is(cancelled.status, 200, cancelled.text);
  t.is(cancelled.body.status, 'cancelled');
  const again = await k.call(`/api/v1/workflows/runs/${res.body.run_id}/cancel`, { method: 'POST', token: 'member-token' });
  t.is(again.status, 409);
  t.is(again.body.code, 'WORKFLOWS_ERR_ILLEGAL_TRANSITION');
  const resume = await k.call(`/api/v1/workflows/runs/${res.body.run_id}/resume`, { method: 'POST', token: 'owner-token', json: {} });
  t.is(resume.status, 409);
});

test('config.timeout bounds a node; missing or null means no outer deadline', async (t) => {
  const steps = (timeout: unknown) => [
    { id: 'start', type: 'trigger', next: ['nap'] },
    { id: 'nap', type: 'sleep', config: { ms: 600, ...(timeout === undefined ? {} : { timeout }) }, next: [] },
  ];
  const bounded = await k.createWorkflow('owner-token', { name: 'bounded', steps: steps(0.1) });
  const res = await run(bounded.id, { input: {}, wait: true });
  t.is(res.body.status, 'failed', res.text);
  t.regex(res.body.error.message, /timeout of 0.1 s/);
  for (const timeout of [undefined, null]) {
    const open = await k.createWorkflow('owner-token', { name: `open ${timeout}`, steps: steps(timeout) });
    const ok = await run(open.id, { input: {}, wait: true });
    t.is(ok.body.status, 'completed', ok.text);
    t.deepEqual(ok.body.output, { slept: 600 });
  }
  const bad = await k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { name: 'bad timeout', steps: steps(-1) } });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field), ['steps.nap.config.timeout']);
});

test('/metrics shows the group commits of runs: statements, their sizes, waits and round trips, by kind', async (t) => {
  const wf = await k.createWorkflow('owner-token', linearWorkflow('metrics'));
  t.is((await run(wf.id, { input: { name: 'mo' }, wait: true })).body.status, 'completed');
  const res = await k.call('/metrics');
  t.is(res.status, 200);
  const count = (metric: string, kind: string) => Number(new RegExp(`^${metric}_count\\{[^}]*kind="${kind}"[^}]*\\} (\\d+)`, 'm').exec(res.text)?.[1] ?? 0);
  for (const metric of ['workflows_commit_batch_size', 'workflows_commit_wait', 'workflows_commit_flush']) {
    t.true(count(metric, 'run_create') >= 1, `${metric} run_create`);
    t.true(count(metric, 'step_commit') >= 1, `${metric} step_commit`);
  }
});
