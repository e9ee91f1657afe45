import { logicalStepId } from '../engine/loops.ts';
import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { planRetry } from '../engine/retry-plan.ts';
import { runSummary } from '../run-view.ts';
import { RUN_ID_PARAM, RUN_SCHEMA, RUN_STARTED_SCHEMA } from '../schemas.ts';
import type { PauseInfo, RunRow } from '../store/run-types.ts';
import type { WorkflowsAction } from '../service.ts';
import { durableDecision, requeue } from '../run-launch.ts';
import { WORKFLOWS_INTERRUPT_EVENT } from '../../../kernel/nodes/durable.ts';
import { runWorkspace } from '../workspace-of.ts';

/** an element receipt's id suffix (engine/each.ts) */
const ELEMENT_ID = /(@\d+)?:each\.\d+$/;

function illegal(row: RunRow, move: string): Error {
  return WORKFLOWS_ERR.ILLEGAL_TRANSITION(`A ${row.status} run cannot be ${move}.`, { run_id: row.id, status: row.status });
}

/** a run whose definition version is gone (not something the API can do: versions are kept) */
function missingSnapshot(row: RunRow): Error {
  return WORKFLOWS_ERR.ILLEGAL_TRANSITION('The run has no snapshot of its definition any more; it cannot go on.', { run_id: row.id, status: row.status });
}


export const cancelRun: WorkflowsAction = {
  rest: 'POST /runs/:run_id/cancel',
  summary: 'Cancel a pending, running or paused run',
  description: 'Works also for a run whose worker vanished. A finished run answers 409.',
  tags: ['workflows'],
  params: { ...RUN_ID_PARAM },
  response: RUN_SCHEMA,
  async handler(ctx: Context<{ run_id: string }>) {
    const who = identityOf(ctx);
    const row = await this.runQueries.get(who.entity_id, ctx.params.run_id);
    const cancelled = await this.control.cancel(who.entity_id, row.id, who.id);
    if (!cancelled) throw illegal(row, 'cancelled');
    this.live.publish(row.id, row.entity_id, [{ id: cancelled.seq, type: 'run.finished', data: { status: 'cancelled' } }]);
    // a durable step in flight (an agent's model call) stops now instead of at its next commit
    void Promise.resolve(ctx.broadcast(WORKFLOWS_INTERRUPT_EVENT, { run_id: row.id, reason: 'the run was cancelled' })).catch(() => undefined);
    return runSummary(cancelled);
  },
};

export const resumeRun: WorkflowsAction = {
  rest: 'POST /runs/:run_id/resume',
  workspaceOf: runWorkspace,
  summary: 'Resume a paused run',
  description:
    'An approval wait, and a step whose node answered runtime_approval_required, need `{"decision": "approve" | "reject", "comment"?}` from the run owner; anything else, or anyone else, is refused (422 / 403) and the run stays paused. `reject` fails the step and the run. Approving a runtime approval repeats exactly the saved invocation (the node sees the approval and checks its policy again; a workspace archived or paused meanwhile fails the step instead). An event wait takes `input` as the wait step\'s output; a timer wait may be ended early.',
  tags: ['workflows'],
  params: {
    ...RUN_ID_PARAM,
    decision: { type: 'enum', values: ['approve', 'reject'], optional: true },
    comment: { type: 'string', max: 2000, optional: true },
    input: { type: 'any', optional: true },
    step_id: { type: 'string', max: 128, optional: true },
  },
  response: RUN_SCHEMA,
  async handler(ctx: Context<{ run_id: string; decision?: 'approve' | 'reject'; comment?: string; input?: unknown; step_id?: string }>) {
    const who = identityOf(ctx);
    const row = await this.runQueries.get(who.entity_id, ctx.params.run_id);
    if (row.status !== 'paused' || !row.pause) throw illegal(row, 'resumed');
    const receipts = await this.runQueries.receipts(row.id);
    const stepId = ctx.params.step_id ?? row.pause.step_id;
    const waiting = receipts.find((r) => r.step_id === stepId && r.status === 'waiting');
    if (!waiting) throw ERRORS.VALIDATION_FAILED(`Step '${stepId}' is not waiting.`, [{ field: 'step_id', message: `Step '${stepId}' of this run is not waiting.`, type: 'notWaiting' }]);
    const pause = (waiting.directive?.pause ?? row.pause) as PauseInfo;
    if (!row.snapshot) throw missingSnapshot(row);
    const step = row.snapshot.steps.find((s) => s.id === logicalStepId(stepId));
    if (!step) throw ERRORS.NOT_FOUND(`No step '${stepId}' in this run's snapshot.`, { resource: 'workflow_step', id: stepId });
    if (pause.kind === 'question') {
      if (who.id !== row.owner_id) throw WORKFLOWS_ERR.NOT_RUN_OWNER('Only the owner of this run can answer its question.', { run_id: row.id });
    } else if (pause.decision_required) {
      if (!ctx.params.decision) throw WORKFLOWS_ERR.DECISION_REQUIRED('This run waits for an approval: give "decision": "approve" or "reject". A generic resume is not an approval.', { run_id: row.id, step_id: stepId });
      if (who.id !== row.owner_id) throw WORKFLOWS_ERR.NOT_RUN_OWNER('Only the owner of this run can decide its approval.', { run_id: row.id });
    } else if (ctx.params.decision) {
      throw ERRORS.VALIDATION_FAILED('No approval is pending on this step.', [{ field: 'decision', message: `Step '${stepId}' waits for ${pause.kind === 'timer' ? 'a timer' : 'an event'}, not a decision.`, type: 'noDecisionPending' }]);
    }
    const decided = { decided_by: who.id, decided_at: new Date().toISOString(), comment: ctx.params.comment ?? null };
    if (this.nodeTypes.get(step.type)?.description.checkpoints && (pause.kind === 'runtime_approval' || pause.kind === 'question')) {
      const decision = durableDecision(pause, ctx.params, decided);
      const updated = await this.control.approveInvocation(who.entity_id, row.id, stepId, decision);
      if (!updated) throw illegal(await this.runQueries.get(who.entity_id, row.id), 'resumed');
      await requeue(this, updated);
      return runSummary(updated);
    }
    if (pause.kind === 'runtime_approval' && ctx.params.decision === 'approve') {
      // the worker repeats exactly the saved invocation, with this approval
      const approved = await this.control.approveInvocation(who.entity_id, row.id, stepId, { decision: 'approve', ...decided });
      if (!approved) throw illegal(await this.runQueries.get(who.entity_id, row.id), 'resumed');
      await requeue(this, approved);
      return runSummary(approved);
    }
    const outcome =
      ctx.params.decision === 'reject'
        ? ({ status: 'failed', error: { message: `approval rejected by ${who.id}${ctx.params.comment ? `: ${ctx.params.comment}` : ''}`, code: 'APPROVAL_REJECTED', step_id: stepId, ...decided } } as const)
        : ({ status: 'completed', output: ctx.params.decision ? { decision: 'approve', ...decided } : { resumed_by: who.id, input: ctx.params.input ?? null }, taken: step.next } as const);
    const updated = await this.control.settleWait(who.entity_id, row.id, stepId, outcome);
    if (!updated) throw illegal(await this.runQueries.get(who.entity_id, row.id), 'resumed');
    if (updated.status === 'running') await requeue(this, updated);
    else this.live.publish(row.id, row.entity_id, [{ id: updated.seq, type: 'run.finished', data: { status: updated.status } }]);
    return runSummary(updated);
  },
};

export const retryRun: WorkflowsAction = {
  rest: 'POST /runs/:run_id/retry',
  workspaceOf: runWorkspace,
  summary: 'Retry a failed run: a new run in its lineage',
  description:
    'From the failed receipt, or from `from_step_id`. Receipts outside the recovery frontier are carried over; the selected step and what depends on it run again, on the run\'s immutable snapshot. Refused (409) for a run that is not failed, a missing or incompatible snapshot, or a step with an unreconciled uncertain effect (reconcile it with POST /runs/{run_id}/step). The original stays failed.',
  tags: ['workflows'],
  params: { ...RUN_ID_PARAM, from_step_id: { type: 'string', min: 1, max: 128, optional: true } },
  response: { 202: RUN_STARTED_SCHEMA },
  async handler(ctx: Context<{ run_id: string; from_step_id?: string }>) {
    const who = identityOf(ctx);
    const row = await this.runQueries.get(who.entity_id, ctx.params.run_id);
    const receipts = await this.runQueries.receipts(row.id);
    const plan = planRetry(row, receipts, ctx.params.from_step_id, (type) => this.nodeTypes.get(type) !== undefined, (type) => Boolean(this.nodeTypes.get(type)?.description.loop));
    if ('kind' in plan) {
      switch (plan.kind) {
        case 'not_failed': throw WORKFLOWS_ERR.RETRY_REFUSED(`Only a failed run can be retried; this one is ${plan.status}.`, { run_id: row.id, status: plan.status });
        case 'snapshot': throw WORKFLOWS_ERR.RETRY_REFUSED(`Cannot retry: ${plan.message}.`, { run_id: row.id });
        case 'unknown_step': throw ERRORS.VALIDATION_FAILED(`No step '${plan.step_id}' in this run.`, [{ field: 'from_step_id', message: `The run's snapshot has no step '${plan.step_id}'.`, type: 'unknownStep' }]);
        case 'unreconciled': throw WORKFLOWS_ERR.UNRECONCILED_EFFECT(`Step(s) ${plan.steps.join(', ')} had an uncertain external effect; reconcile them (POST /runs/${row.id}/step) before retrying.`, { run_id: row.id, steps: plan.steps });
        default: throw WORKFLOWS_ERR.RETRY_REFUSED('The run has no failed step to retry from; give from_step_id.', { run_id: row.id });
      }
    }
    const next = await this.engine.enqueueRun(
      {
        id: newId(), entity_id: row.entity_id, workflow_id: row.workflow_id, workflow_version: row.workflow_version, binding_id: row.binding_id, workspace_id: row.workspace_id,
        owner_id: row.owner_id, trigger_type: row.trigger_type, snapshot: plan.snapshot, snapshot_by_version: row.snapshot_by_version === true, trigger: row.trigger, variables: row.variables,
        retry_of: row.id, root_run_id: row.root_run_id, retry_from_step: plan.from.join(','), invalidated: plan.invalidated, lineage_attempt: row.lineage_attempt + 1,
      },
      { receipts: plan.carried },
    );
    (ctx.meta as { $statusCode?: number }).$statusCode = 202;
    return { run_id: next.id, status: next.status, retry_of: row.id, from_step_ids: plan.from, invalidated_steps: plan.invalidated, carried_steps: plan.carried.map((r) => r.step_id) };
  },
};

export const stepControl: WorkflowsAction = {
  rest: 'POST /runs/:run_id/step',
  workspaceOf: runWorkspace,
  summary: 'Run control: reconcile a step with an uncertain external effect',
  description: '`{"step_id", "action": "reconcile", "outcome": "succeeded" | "failed", "output"?, "note"?}` records how a step that was in flight when its worker died really ended, so the run can be retried. `step_id` may name one element of a step with `each` (`<step>:each.<i>`).',
  tags: ['workflows'],
  params: {
    ...RUN_ID_PARAM,
    step_id: { type: 'string', min: 1, max: 128 },
    action: { type: 'enum', values: ['reconcile'] },
    outcome: { type: 'enum', values: ['succeeded', 'failed'] },
    output: { type: 'any', optional: true },
    note: { type: 'string', max: 2000, optional: true },
  },
  response: RUN_SCHEMA,
  async handler(ctx: Context<{ run_id: string; step_id: string; outcome: 'succeeded' | 'failed'; output?: unknown; note?: string }>) {
    const who = identityOf(ctx);
    const row = await this.runQueries.get(who.entity_id, ctx.params.run_id);
    // an element of a step with each (`<step>:each.<i>`, in a loop `<step>@<n>:each.<i>`) is reconciled on its own
    const ownerId = ctx.params.step_id.replace(ELEMENT_ID, '');
    const step = row.snapshot?.steps.find((s) => s.id === ownerId);
    if (!step) throw ERRORS.NOT_FOUND(`No step '${ctx.params.step_id}' in this run.`, { resource: 'workflow_step', id: ctx.params.step_id });
    const taken = ownerId === ctx.params.step_id ? step.next : [];
    const ok = await this.control.reconcile(who.entity_id, row.id, ctx.params.step_id, ctx.params.outcome === 'succeeded', ctx.params.output, taken, ctx.params.note ?? null);
    if (!ok) throw WORKFLOWS_ERR.ILLEGAL_TRANSITION(`Step '${ctx.params.step_id}' does not need reconciliation.`, { run_id: row.id, step_id: ctx.params.step_id });
    return runSummary(row);
  },
};
