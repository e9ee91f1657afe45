import test from 'ava';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';

// no SMTP settings and no notifications package: both channels fail the step with a clear reason
let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('node_notify_unavailable', { nodes: ['trigger', 'notify'] });
});
test.after.always(async () => k?.close());

const run = async (config: Record<string, unknown>) => {
  const wf = await k.createWorkflow('owner-token', { name: 'n', steps: [{ id: 'start', type: 'trigger', next: ['tell'] }, { id: 'tell', type: 'notify', config, next: [] }] });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: {} } });
  return runUntil(k, 'owner-token', started.body.run_id, ['completed', 'failed']);
};

test('email without SMTP configured fails the step with EMAIL_UNAVAILABLE', async (t) => {
  const done = await run({ channel: 'email', to: ['a@example.test'], message: 'hi' });
  t.is(done.status, 'failed');
  t.like(receipt(done, 'tell').error, { code: 'EMAIL_UNAVAILABLE' });
});

test('in-app without the notifications package fails the step with NOTIFICATIONS_UNAVAILABLE', async (t) => {
  const done = await run({ message: 'hi' });
  t.is(done.status, 'failed');
  t.like(receipt(done, 'tell').error, { code: 'NOTIFICATIONS_UNAVAILABLE' });
});
