import test from 'ava';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';
import type { WorkflowsService } from '../plugins/workflows/service.ts';

/**
 * A test-only node type `guarded`: like a tool whose policy says "ask". Without an approval in
 * its context it answers runtime_approval_required; with one it checks the CURRENT policy (set
 * by the test through `node.guarded.setPolicy`) and acts. Every call is recorded.
 */
const GUARDED_NODE: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'test-node-guarded', version: '1.0.0', type: 'module', capability: { kind: 'node', roles: ['api', 'work'] } }),
  'index.js': `let policy = 'ask';
const calls = [];
export default {
  name: 'node.guarded',
  metadata: { nodeType: { type: 'guarded', version: 1, category: 'test', config_schema: { type: 'object', properties: { action: { type: 'string' } }, required: ['action'], additionalProperties: false }, outputs: ['main'], uncertain_effect: false } },
  actions: {
    execute: {
      params: { config: 'object', input: { type: 'any', optional: true }, inputs: { type: 'object', optional: true }, context: { type: 'object', optional: true } },
      handler(ctx) {
        const { config, input, context } = ctx.params;
        calls.push({ run_id: context.run_id, config, input, attempt: context.attempt, approval: context.approval ?? null });
        if (!context.approval) return { runtime_approval_required: { reason: 'sending ' + config.action + ' needs approval', action: config.action } };
        if (policy === 'deny') throw new Error('the policy for ' + config.action + ' now says deny');
        return { output: { sent: config.action, approved_by: context.approval.decided_by, input } };
      },
    },
    setPolicy: { params: { policy: 'string' }, handler(ctx) { policy = ctx.params.policy; } },
    calls: { params: { run_id: 'string' }, handler(ctx) { return calls.filter((c) => c.run_id === ctx.params.run_id); } },
  },
};
`,
};

let k: WorkflowsKernel;
let workflowId: string;
test.before(async () => {
  k = await startWorkflowsKernel('wf_runtime_approval', { extra: { 'test-node-guarded': GUARDED_NODE } });
  const wf = await k.createWorkflow('owner-token', {
    name: 'guarded send',
    steps: [
      { id: 'start', type: 'trigger', next: ['send'] },
      { id: 'send', type: 'guarded', config: { action: '{{trigger.kind}}' }, next: ['after'] },
      { id: 'after', type: 'transform', config: { set: { result: '{{send.output}}' } }, next: [] },
    ],
  });
  workflowId = wf.id;
});
test.after.always(async () => k?.close());

const callsOf = async (runId: string) => (await k.kernel.broker.call('node.guarded.calls', { run_id: runId })) as { config: { action: string }; input: unknown; attempt: number; approval: { decided_by: string } | null }[];

async function parkedRun(workspaceId?: string): Promise<any> {
  const started = await k.call(`/api/v1/workflows/${workflowId}/run`, { method: 'POST', token: 'owner-token', json: { input: { kind: 'invoice' }, ...(workspaceId ? { workspace_id: workspaceId } : {}) } });
  if (started.status !== 202) throw new Error(`run start answered ${started.status}: ${started.text}`);
  return runUntil(k, 'owner-token', started.body.run_id, ['paused', 'failed', 'completed']);
}

const resume = (runId: string, body: Record<string, unknown>, token = 'owner-token') => k.call(`/api/v1/workflows/runs/${runId}/resume`, { method: 'POST', token, json: body });

test.serial('runtime_approval_required parks the run at the step with its exact invocation; nothing else counts as approval', async (t) => {
  const run = await parkedRun();
  t.is(run.status, 'paused');
  t.is(run.pause.kind, 'runtime_approval');
  t.is(run.pause.step_id, 'send');
  t.true(run.pause.decision_required);
  t.is(run.pause.message, 'sending invoice needs approval');
  t.deepEqual(run.pause.invocation.config, { action: 'invoice' }, 'the config as resolved when the node asked');
  t.is(receipt(run, 'send').status, 'waiting');
  t.is((await callsOf(run.id)).length, 1);

  const generic = await resume(run.id, {});
  t.is(generic.status, 422);
  t.is(generic.body.code, 'WORKFLOWS_ERR_DECISION_REQUIRED');
  const byAdmin = await resume(run.id, { decision: 'approve' }, 'admin-token');
  t.is(byAdmin.status, 403);
  t.is(byAdmin.body.code, 'WORKFLOWS_ERR_NOT_RUN_OWNER');
  const retry = await k.call(`/api/v1/workflows/runs/${run.id}/retry`, { method: 'POST', token: 'owner-token', json: {} });
  t.is(retry.status, 409, 'a retry is not an approval');
  // an edited definition is not an approval either
  const edit = await k.call(`/api/v1/workflows/${workflowId}`, { method: 'PUT', token: 'owner-token', json: { name: 'guarded send', steps: [{ id: 'start', type: 'trigger', next: ['send'] }, { id: 'send', type: 'guarded', config: { action: 'refund' }, next: [] }] } });
  t.is(edit.status, 200, edit.text);
  await new Promise((r) => setTimeout(r, 300));
  const still = (await k.call(`/api/v1/workflows/runs/${run.id}`, { token: 'owner-token' })).body;
  t.is(still.status, 'paused');
  t.is((await callsOf(run.id)).length, 1, 'the node was not called again');
  // put the definition back for the other tests
  await k.call(`/api/v1/workflows/${workflowId}`, { method: 'PUT', token: 'owner-token', json: { name: 'guarded send', steps: [{ id: 'start', type: 'trigger', next: ['send'] }, { id: 'send', type: 'guarded', config: { action: '{{trigger.kind}}' }, next: ['after'] }, { id: 'after', type: 'transform', config: { set: { result: '{{send.output}}' } }, next: [] }] } });

  // the owner approves: exactly that invocation runs once more, with the approval, on the run's snapshot
  const approved = await resume(run.id, { decision: 'approve', comment: 'ok to send' });
  t.is(approved.status, 200, approved.text);
  const done = await runUntil(k, 'owner-token', run.id, ['completed', 'failed']);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  const calls = await callsOf(run.id);
  t.is(calls.length, 2);
  t.deepEqual(calls[1].config, { action: 'invoice' }, 'the saved invocation, not the edited definition');
  t.deepEqual(calls[1].input, calls[0].input);
  t.is(calls[1].attempt, 2);
  t.is(calls[1].approval?.decided_by, 'u-owner');
  t.deepEqual(receipt(done, 'after').output, { result: { sent: 'invoice', approved_by: 'u-owner', input: { kind: 'invoice' } } });
  const svc = k.kernel.broker.getLocalService('workflows') as unknown as WorkflowsService;
  const events = await svc.runQueries.eventsAfter(run.id, 0);
  t.deepEqual(events.filter((e) => e.type === 'run.resumed').map((e) => e.data.approved_step), ['send'], 'the approval resumes the run once: the worker that takes it adds no second run.resumed');
  t.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1), 'gap-free');
});

test.serial('reject fails the step and the run without calling the node again', async (t) => {
  const run = await parkedRun();
  const rejected = await resume(run.id, { decision: 'reject', comment: 'no' });
  t.is(rejected.status, 200, rejected.text);
  t.is(rejected.body.status, 'failed');
  t.is(receipt((await k.call(`/api/v1/workflows/runs/${run.id}`, { token: 'owner-token' })).body, 'send').status, 'failed');
  t.is((await callsOf(run.id)).length, 1);
});

test.serial('the node rechecks the current policy when the approved invocation repeats', async (t) => {
  const run = await parkedRun();
  await k.kernel.broker.call('node.guarded.setPolicy', { policy: 'deny' });
  try {
    t.is((await resume(run.id, { decision: 'approve' })).status, 200);
    const done = await runUntil(k, 'owner-token', run.id, ['completed', 'failed']);
    t.is(done.status, 'failed');
    t.regex(receipt(done, 'send').error.message, /now says deny/);
    t.is((await callsOf(run.id)).length, 2);
  } finally {
    await k.kernel.broker.call('node.guarded.setPolicy', { policy: 'ask' });
  }
});

test.serial('a workspace archived while the run waited: the approval is refused (409), the invocation is not repeated, the run can be cancelled', async (t) => {
  const workspaceId = await k.createWorkspace('owner-token');
  const run = await parkedRun(workspaceId);
  t.is(run.status, 'paused');
  t.is((await k.call(`/api/v1/workspaces/${workspaceId}`, { method: 'DELETE', token: 'owner-token' })).status, 200);
  const approved = await resume(run.id, { decision: 'approve' });
  t.is(approved.status, 409, approved.text);
  t.like(approved.body, { code: 'WORKSPACES_ERR_ARCHIVED', workspace_id: workspaceId, workspace_state: 'archived' });
  t.is((await k.call(`/api/v1/workflows/runs/${run.id}`, { token: 'owner-token' })).body.status, 'paused');
  t.is((await callsOf(run.id)).length, 1, 'the node was not called again');
  const cancelled = await k.call(`/api/v1/workflows/runs/${run.id}/cancel`, { method: 'POST', token: 'owner-token' });
  t.is(cancelled.status, 200, cancelled.text);
  t.is(cancelled.body.status, 'cancelled');
});

test.serial('the run list does not carry the saved invocation; another entity cannot see or decide the run', async (t) => {
  const run = await parkedRun();
  const listed = (await k.call('/api/v1/workflows/runs', { token: 'owner-token' })).body.items.find((r: { id: string }) => r.id === run.id);
  t.is(listed.pause.kind, 'runtime_approval');
  t.is(listed.pause.invocation, undefined);
  t.is((await resume(run.id, { decision: 'approve' }, 'other-token')).status, 404);
  t.is((await k.call(`/api/v1/workflows/runs/${run.id}`, { token: 'other-token' })).status, 404);
  await k.call(`/api/v1/workflows/runs/${run.id}/cancel`, { method: 'POST', token: 'owner-token' });
});
