import test from 'ava';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_approvals', { env: { WORKFLOW_INLINE_WAIT_SECONDS: '0' } });
});
test.after.always(async () => {
  await k?.close();
});

const APPROVAL = {
  name: 'approval',
  steps: [
    { id: 'start', type: 'trigger', next: ['ask'] },
    { id: 'ask', type: 'wait', config: { wait_type: 'approval', message: 'ship it?' }, next: ['ship'] },
    { id: 'ship', type: 'transform', config: { set: { decision: '{{ask.output.decision}}', by: '{{ask.output.decided_by}}' } }, next: [] },
  ],
};

async function pausedRun(token = 'member-token'): Promise<string> {
  const wf = await k.createWorkflow(token, APPROVAL);
  const res = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token, json: { input: {}, wait: true } });
  if (res.body.status !== 'paused') throw new Error(`expected paused, got ${res.text}`);
  return res.body.run_id;
}

const resume = (runId: string, token: string, json: unknown) => k.call(`/api/v1/workflows/runs/${runId}/resume`, { method: 'POST', token, json });

test('an approval wait pauses the run until its owner approves', async (t) => {
  const runId = await pausedRun();
  const paused = (await k.call(`/api/v1/workflows/runs/${runId}`, { token: 'member-token' })).body;
  t.is(paused.pause.kind, 'approval');
  t.is(paused.pause.decision_required, true);
  t.is(paused.pause.message, 'ship it?');
  t.is(receipt(paused, 'ask').status, 'waiting');
  const res = await resume(runId, 'member-token', { decision: 'approve', comment: 'go' });
  t.is(res.status, 200, res.text);
  const done = await runUntil(k, 'member-token', runId, ['completed']);
  t.deepEqual(receipt(done, 'ship').output, { decision: 'approve', by: 'u-member' });
});

test('a resume without a decision is refused and the run stays paused', async (t) => {
  const runId = await pausedRun();
  for (const body of [{}, { input: { approved: true } }, { comment: 'yes' }]) {
    const res = await resume(runId, 'member-token', body);
    t.is(res.status, 422, res.text);
    t.is(res.body.code, 'WORKFLOWS_ERR_DECISION_REQUIRED');
  }
  const res = await resume(runId, 'member-token', { decision: 'maybe' });
  t.is(res.status, 422);
  t.is((await k.call(`/api/v1/workflows/runs/${runId}`, { token: 'member-token' })).body.status, 'paused');
});

test('a decision by anyone but the run owner is refused and the run stays paused', async (t) => {
  const runId = await pausedRun('member-token');
  const admin = await resume(runId, 'owner-token', { decision: 'approve' });
  t.is(admin.status, 403, admin.text);
  t.is(admin.body.code, 'WORKFLOWS_ERR_NOT_RUN_OWNER');
  t.is((await resume(runId, 'other-token', { decision: 'approve' })).status, 404);
  const run = (await k.call(`/api/v1/workflows/runs/${runId}`, { token: 'member-token' })).body;
  t.is(run.status, 'paused');
  t.is(receipt(run, 'ask').status, 'waiting');
});

test('a retry or a definition edit is never taken as an approval', async (t) => {
  const runId = await pausedRun();
  const retry = await k.call(`/api/v1/workflows/runs/${runId}/retry`, { method: 'POST', token: 'member-token', json: {} });
  t.is(retry.status, 409);
  const run = (await k.call(`/api/v1/workflows/runs/${runId}`, { token: 'member-token' })).body;
  const edited = await k.call(`/api/v1/workflows/${run.workflow_id}`, { method: 'PUT', token: 'member-token', json: { ...APPROVAL, steps: [APPROVAL.steps[0], { ...APPROVAL.steps[1], type: 'transform', config: { set: {} } }, APPROVAL.steps[2]] } });
  t.is(edited.status, 200);
  t.is((await k.call(`/api/v1/workflows/runs/${runId}`, { token: 'member-token' })).body.status, 'paused');
});

test('reject fails the wait step and the run', async (t) => {
  const runId = await pausedRun();
  const res = await resume(runId, 'member-token', { decision: 'reject', comment: 'no' });
  t.is(res.status, 200, res.text);
  t.is(res.body.status, 'failed');
  const run = (await k.call(`/api/v1/workflows/runs/${runId}`, { token: 'member-token' })).body;
  t.is(receipt(run, 'ask').status, 'failed');
  t.is(run.error.code, 'APPROVAL_REJECTED');
  t.is(receipt(run, 'ship'), undefined);
});

test('an event wait pauses until resumed, and the resume input is its output', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'event wait',
    steps: [
      { id: 'start', type: 'trigger', next: ['hold'] },
      { id: 'hold', type: 'wait', config: { wait_type: 'event', event: 'payment.received' }, next: ['use'] },
      { id: 'use', type: 'transform', config: { set: { paid: '{{hold.output.input.amount}}' } }, next: [] },
    ],
  });
  const res = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: {}, wait: true } });
  t.is(res.body.status, 'paused');
  t.is((await resume(res.body.run_id, 'owner-token', { decision: 'approve' })).status, 422, 'no decision is pending on an event wait');
  const ok = await resume(res.body.run_id, 'member-token', { input: { amount: 12 } });
  t.is(ok.status, 200, ok.text);
  const done = await runUntil(k, 'owner-token', res.body.run_id, ['completed']);
  t.deepEqual(done.output, { paid: 12 });
});

test('a long timer wait pauses the run and a delayed job resumes it', async (t) => {
  const wf = await k.createWorkflow('owner-token', {
    name: 'timer',
    steps: [
      { id: 'start', type: 'trigger', next: ['nap'] },
      { id: 'nap', type: 'wait', config: { wait_type: 'timer', seconds: 1 }, next: ['after'] },
      { id: 'after', type: 'transform', config: { set: { woke: true } }, next: [] },
    ],
  });
  const res = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: {}, wait: true } });
  t.is(res.body.status, 'paused', res.text);
  t.is(res.body.pause.kind, 'timer');
  t.truthy(res.body.pause.resume_at);
  const done = await runUntil(k, 'owner-token', res.body.run_id, ['completed'], 15_000);
  t.deepEqual(done.output, { woke: true });
  t.true(Date.parse(receipt(done, 'nap').finished_at) >= Date.parse(res.body.pause.resume_at));
});
