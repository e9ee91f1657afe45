import test from 'ava';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

const TOKEN = 'owner-token';
let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_loop', { nodes: ['trigger', 'loop', 'transform', 'wait', 'condition', 'datetime'] });
});
test.after.always(async () => {
  await k?.close();
});

test('a run paused inside iteration 1 resumes there: iteration 0 is not run again, and the loop goes on to done', async (t) => {
  const wf = await k.createWorkflow(TOKEN, {
    name: 'loop with a wait',
    steps: [
      { id: 'start', type: 'trigger', next: ['each'] },
      { id: 'each', type: 'loop', config: { items: '{{trigger.names}}', branches: { body: 'check', done: 'after' } }, next: ['check', 'after'] },
      { id: 'check', type: 'condition', config: { expression: '{{each.output.item}}', operator: 'eq', value: 'bo', branches: { true: 'ask', false: 'greet' } }, next: ['ask', 'greet'] },
      { id: 'ask', type: 'wait', config: { wait_type: 'event' }, next: ['greet'] },
      { id: 'greet', type: 'transform', config: { set: { hello: '{{each.output.item}}', iteration: '{{each.output.iteration}}', asked: '{{ask.output.input}}' } }, next: ['each'] },
      { id: 'after', type: 'transform', config: { set: { all: '{{each.output.results}}' } }, next: [] },
    ],
  });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: TOKEN, json: { input: { names: ['ada', 'bo', 'cy'] }, wait: true } });
  const paused = await runUntil(k, TOKEN, started.body.run_id ?? started.body.id, ['paused', 'failed', 'completed']);
  t.is(paused.status, 'paused', JSON.stringify(paused.error));
  t.is(paused.pause.step_id, 'ask@1', 'the pause names the iteration receipt');
  t.is(receipt(paused, 'greet@0').output.hello, 'ada');
  const firstGreet = receipt(paused, 'greet@0').finished_at;

  const resumed = await k.call(`/api/v1/workflows/runs/${paused.id}/resume`, { method: 'POST', token: TOKEN, json: { input: 'yes' } });
  t.is(resumed.status, 200, resumed.text);
  const done = await runUntil(k, TOKEN, paused.id, ['completed', 'failed']);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual(done.output, {
    all: [
      { hello: 'ada', iteration: 0, asked: null },
      { hello: 'bo', iteration: 1, asked: 'yes' },
      { hello: 'cy', iteration: 2, asked: null },
    ],
  });
  t.is(receipt(done, 'greet@0').finished_at, firstGreet, 'iteration 0 was not run again');
  t.deepEqual(done.steps.filter((s: { step_id: string }) => /^each@/.test(s.step_id)).map((s: { step_id: string }) => s.step_id), ['each@0', 'each@1', 'each@2']);
  t.is(receipt(done, 'ask@2').status, 'skipped');
});

test('a retry of a run that failed in iteration 2 carries iterations 0 and 1 and runs iteration 2 again', async (t) => {
  const wf = await k.createWorkflow(TOKEN, {
    name: 'loop that fails',
    steps: [
      { id: 'start', type: 'trigger', next: ['each'] },
      { id: 'each', type: 'loop', config: { items: '{{trigger.rows}}', branches: { body: 'check', done: 'after' } }, next: ['check', 'after'] },
      { id: 'check', type: 'datetime', config: { op: 'parse', datetime: '{{each.output.item}}' }, next: ['ok'] },
      { id: 'ok', type: 'transform', config: { set: { day: '{{check.output.date}}' } }, next: ['each'] },
      { id: 'after', type: 'transform', config: { set: { all: '{{each.output.results}}' } }, next: [] },
    ],
  });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: TOKEN, json: { input: { rows: ['2025-01-01', '2025-01-02', 'garbage'] }, wait: true } });
  const failed = await runUntil(k, TOKEN, started.body.run_id, ['failed', 'completed']);
  t.is(failed.status, 'failed');
  const retry = await k.call(`/api/v1/workflows/runs/${failed.id}/retry`, { method: 'POST', token: TOKEN, json: {} });
  t.is(retry.status, 202, retry.text);
  t.true(['ok@0', 'each@0', 'ok@1', 'each@1'].every((id) => retry.body.carried_steps.includes(id)), JSON.stringify(retry.body));
  t.false(retry.body.carried_steps.some((id: string) => id.endsWith('@2')), JSON.stringify(retry.body.carried_steps));
  const again = await runUntil(k, TOKEN, retry.body.run_id, ['failed', 'completed']);
  t.is(receipt(again, 'ok@0').carried_from, failed.id);
  t.is(receipt(again, 'check@2').status, 'failed', 'iteration 2 ran again (and fails again)');
  t.is(receipt(again, 'check@2').error.code, 'DATETIME_BAD_VALUE');
  t.is(receipt(again, 'check@2').carried_from, null);
  t.is(again.status, 'failed');
});

test('loops do not nest: a loop inside a body is refused at save', async (t) => {
  const res = await k.call('/api/v1/workflows', {
    method: 'POST',
    token: TOKEN,
    json: {
      name: 'nested',
      steps: [
        { id: 'start', type: 'trigger', next: ['outer'] },
        { id: 'outer', type: 'loop', config: { items: [[1]], branches: { body: 'inner' } }, next: ['inner'] },
        { id: 'inner', type: 'loop', config: { items: '{{outer.output.item}}', branches: { body: 'x', done: 'back' } }, next: ['x', 'back'] },
        { id: 'x', type: 'transform', config: { set: {} }, next: ['inner'] },
        { id: 'back', type: 'transform', config: { set: {} }, next: ['outer'] },
      ],
    },
  });
  t.is(res.status, 422);
  t.true(res.body.errors.some((e: { field: string; type: string }) => e.field === 'steps.inner.type' && e.type === 'nested_loop'), res.text);
});
