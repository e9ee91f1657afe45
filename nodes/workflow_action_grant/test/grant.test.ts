import test from 'ava';
import { QueryTypes } from 'sequelize';
import { kernelOf } from '../../../kernel/context.ts';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';

const OWNER = 'owner-token';
let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_action_grant', { nodes: ['trigger', 'transform', 'workflow_action_grant'] });
});
test.after.always(async () => k?.close());

async function grantWorkflow(config: Record<string, unknown>): Promise<string> {
  const wf = await k.createWorkflow(OWNER, {
    name: `grant ${JSON.stringify(config)}`,
    steps: [
      { id: 'start', type: 'trigger', next: ['grant'] },
      { id: 'grant', type: 'workflow_action_grant', config, next: ['act'] },
      { id: 'act', type: 'transform', config: { set: { acted: true, grant: '{{grant.output.grant_id}}' } }, next: [] },
    ],
  });
  return wf.id;
}

async function run(workflowId: string): Promise<any> {
  const started = await k.call(`/api/v1/workflows/${workflowId}/run`, { method: 'POST', token: OWNER, json: { input: {} } });
  if (started.status !== 202) throw new Error(`run start answered ${started.status}: ${started.text}`);
  return runUntil(k, OWNER, started.body.run_id, ['paused', 'failed', 'completed'], 60_000);
}

const resume = (runId: string, body: Record<string, unknown>, token = OWNER) => k.call(`/api/v1/workflows/runs/${runId}/resume`, { method: 'POST', token, json: body });
const grants = async (query = '') => (await k.call(`/api/v1/workflows/grants${query}`, { token: OWNER })).body;

test.serial('ask: parks for the owner; only an explicit owner approval creates the grant; later runs pass without parking', async (t) => {
  const wf = await grantWorkflow({ action: 'send_invoice', max_uses: 3 });
  const first = await run(wf);
  t.is(first.status, 'paused');
  t.is(first.pause.kind, 'runtime_approval');
  t.is((await resume(first.id, {})).status, 422, 'a generic resume is no approval');
  t.is((await resume(first.id, { decision: 'approve' }, 'member-token')).status, 403, 'only the run owner decides');
  t.is((await grants()).total, 0, 'nothing granted yet');
  t.is((await resume(first.id, { decision: 'approve' })).status, 200);
  const done = await runUntil(k, OWNER, first.id, ['completed', 'failed'], 60_000);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.like(receipt(done, 'grant').output, { granted: true, created: true, uses: 1, max_uses: 3 });

  const second = await run(wf);
  t.is(second.status, 'completed', 'inside a valid grant the step does not park');
  t.like(receipt(second, 'grant').output, { granted: true, created: false, uses: 2 });
  const third = await run(wf);
  t.like(receipt(third, 'grant').output, { uses: 3 });
  const fourth = await run(wf);
  t.is(fourth.status, 'paused', 'used up: asks again');
  const listed = await grants('?action=send_invoice');
  t.is(listed.total, 1);
  t.like(listed.items[0], { uses: 3, max_uses: 3, active: false, approved_by: 'u-owner', origin_run_id: first.id });
  t.is((await k.call(`/api/v1/workflows/grants`, { token: 'other-token' })).body.total, 0, "another entity sees none");
});

test.serial('revoke: owner only (404 for another entity, 403 for another member); a revoked grant is not used', async (t) => {
  const wf = await grantWorkflow({ action: 'post_update', mode: 'ask', expires_in_seconds: null });
  const first = await run(wf);
  await resume(first.id, { decision: 'approve' });
  await runUntil(k, OWNER, first.id, ['completed'], 60_000);
  const grantId = (await grants('?action=post_update')).items[0].id;
  t.is((await k.call(`/api/v1/workflows/grants/${grantId}/revoke`, { method: 'POST', token: 'other-token' })).status, 404);
  t.is((await k.call(`/api/v1/workflows/grants/${grantId}/revoke`, { method: 'POST', token: 'member-token' })).body.code, 'WORKFLOWS_ERR_NOT_GRANT_OWNER');
  t.is((await k.call(`/api/v1/workflows/grants/not-a-uuid/revoke`, { method: 'POST', token: OWNER })).status, 422);
  const revoked = await k.call(`/api/v1/workflows/grants/${grantId}/revoke`, { method: 'POST', token: OWNER });
  t.is(revoked.status, 200, revoked.text);
  t.like(revoked.body, { active: false, expires_at: null });
  t.truthy(revoked.body.revoked_at);
  const after = await run(wf);
  t.is(after.status, 'paused', 'a revoked grant lets nothing through');
});

test.serial('check mode: no grant, an expired grant or a revoked one fails the step with GRANT_MISSING', async (t) => {
  const asking = await grantWorkflow({ action: 'wire_money' });
  const checking = await grantWorkflow({ action: 'wire_money', mode: 'check' });
  const none = await run(checking);
  t.is(none.status, 'failed');
  t.is(receipt(none, 'grant').error.code, 'GRANT_MISSING');
  t.not(receipt(none, 'act')?.status, 'completed', 'the guarded step never ran');
  // a grant of another workflow is another scope: approve one for `asking`, `checking` still has none
  const first = await run(asking);
  await resume(first.id, { decision: 'approve' });
  await runUntil(k, OWNER, first.id, ['completed'], 60_000);
  t.is((await run(checking)).status, 'failed', 'grants are scoped by workflow/binding');
  t.is((await run(asking)).status, 'completed');
  // expiry, without waiting for it: the grant's expiry moves into the past
  await kernelOf(k.kernel.broker).db.query("UPDATE workflow_action_grants SET expires_at = now() - interval '1 second' WHERE action = 'wire_money'", { type: QueryTypes.UPDATE });
  t.is((await run(asking)).status, 'paused', 'an expired grant lets nothing through');
});

test.serial('reject fails the step; a retry asks again and creates nothing; a direct createGrant without approval is refused', async (t) => {
  const wf = await grantWorkflow({ action: 'delete_all' });
  const first = await run(wf);
  t.is((await resume(first.id, { decision: 'reject', comment: 'no' })).status, 200);
  const failed = await runUntil(k, OWNER, first.id, ['failed'], 60_000);
  t.is(receipt(failed, 'grant').error.code, 'APPROVAL_REJECTED');
  const retry = await k.call(`/api/v1/workflows/runs/${first.id}/retry`, { method: 'POST', token: OWNER, json: {} });
  t.is(retry.status, 202, retry.text);
  const retried = await runUntil(k, OWNER, retry.body.run_id, ['paused', 'failed', 'completed'], 60_000);
  t.is(retried.status, 'paused', 'the retry asks again instead of acting');
  t.is((await grants('?action=delete_all')).total, 0);
  const meta = { user: { id: 'u-owner', entity_id: 'e-1', role: 'member' } };
  const forged = await t.throwsAsync(k.kernel.broker.call('workflows.createGrant', { run_id: retried.id, step_id: 'grant', action: 'delete_all' }, { meta }));
  t.is((forged as { code?: number }).code, 409, 'a paused run creates nothing');
  t.is((await grants('?action=delete_all')).total, 0);
});

test.serial('concurrent runs never overspend a grant: with 2 uses left, exactly 2 of 6 runs pass', async (t) => {
  const wf = await grantWorkflow({ action: 'limited', max_uses: 3 });
  const first = await run(wf);
  await resume(first.id, { decision: 'approve' });
  await runUntil(k, OWNER, first.id, ['completed'], 60_000);
  const starts = await Promise.all(Array.from({ length: 6 }, () => k.call(`/api/v1/workflows/${wf}/run`, { method: 'POST', token: OWNER, json: { input: {} } })));
  const runs = await Promise.all(starts.map((s) => runUntil(k, OWNER, s.body.run_id, ['paused', 'failed', 'completed'], 60_000)));
  t.is(runs.filter((r) => r.status === 'completed').length, 2);
  t.is(runs.filter((r) => r.status === 'paused').length, 4);
  t.like((await grants('?action=limited')).items[0], { uses: 3, max_uses: 3, active: false });
});
