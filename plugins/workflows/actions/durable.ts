import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { CHECKPOINT_KEY_PATTERN, CHECKPOINTS_AHEAD_MAX, LIVE_EVENTS_RUNS_MAX, type CheckpointParams, type DurableAnswer, type LiveEventsAnswer, type LiveEventsParams } from '../../../kernel/nodes/durable.ts';
import { durableDecision, requeue } from '../run-launch.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { runSummary } from '../run-view.ts';
import type { PauseInfo } from '../store/run-types.ts';
import type { WorkflowsAction } from '../service.ts';

const EVENTS = {
  type: 'array',
  max: 50,
  optional: true,
  items: { type: 'object', strict: true, props: { type: { type: 'string', min: 1, max: 32, pattern: '^[a-z][a-z0-9_.]*$' }, data: 'object' } },
} as const;

/**
 * `workflows.checkpoint` (internal): a durable node commits one checkpoint of its step through
 * the executor driving the run, which must be on this node (call with `{ nodeID:
 * context.engine_node }`), with the checkpoints `ahead` of it in the same commit. Answers `{seq, stop}`; `stop: true` when the run is not driven here
 * any more (lost, cancelled) or was interrupted. Contract: kernel/nodes/durable.ts.
 */
const ENTRY = {
  key: { type: 'string', pattern: CHECKPOINT_KEY_PATTERN },
  status: { type: 'enum', values: ['running', 'completed', 'failed'] },
  output: { type: 'any', optional: true },
  error: { type: 'any', optional: true },
  uncertain: { type: 'boolean', optional: true },
  events: EVENTS,
} as const;

export const checkpoint: WorkflowsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    run_id: { type: 'string', min: 1, max: 64 },
    step_id: { type: 'string', min: 1, max: 128 },
    ...ENTRY,
    ahead: { type: 'array', optional: true, max: CHECKPOINTS_AHEAD_MAX, items: { type: 'object', strict: true, props: ENTRY } },
  },
  async handler(ctx: Context<CheckpointParams>): Promise<DurableAnswer> {
    const executor = this.engine.activeRun(ctx.params.run_id);
    if (!executor) return { stop: true, reason: 'the run is not driven on this node' };
    return executor.checkpoint(ctx.params);
  },
};

/**
 * `workflows.liveEvents` (internal): live-only events of durable steps (text deltas), of several
 * runs at once (kernel/nodes/live-outbox.ts gathers them); answers `{answers}`, each run's
 * `{stop}` in the order given.
 */
export const liveEvents: WorkflowsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    runs: { type: 'array', min: 1, max: LIVE_EVENTS_RUNS_MAX, items: { type: 'object', strict: true, props: { run_id: { type: 'string', min: 1, max: 64 }, events: { ...EVENTS, optional: false } } } },
  },
  handler(ctx: Context<LiveEventsParams>): LiveEventsAnswer {
    return {
      answers: ctx.params.runs.map(({ run_id, events }): DurableAnswer => {
        const executor = this.engine.activeRun(run_id);
        if (!executor) return { stop: true, reason: 'the run is not driven on this node' };
        return executor.liveEvents(events);
      }),
    };
  },
};

/**
 * `workflows.decide` (internal): another package that checked the caller's right itself (tasks'
 * approval route, chat) decides a parked step: approve or reject a runtime approval, or answer a
 * question. The same statement as the owner's resume; 409 when the run no longer waits there.
 */
export const decide: WorkflowsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    run_id: { type: 'string', min: 1, max: 64 },
    step_id: { type: 'string', min: 1, max: 128, optional: true },
    decision: { type: 'enum', values: ['approve', 'reject', 'answer'] },
    answer: { type: 'string', max: 20_000, optional: true },
    comment: { type: 'string', max: 2000, optional: true },
  },
  async handler(ctx: Context<{ run_id: string; step_id?: string; decision: 'approve' | 'reject' | 'answer'; answer?: string; comment?: string }>) {
    const who = identityOf(ctx);
    const row = await this.runQueries.get(who.entity_id, ctx.params.run_id);
    if (row.status !== 'paused' || !row.pause) throw WORKFLOWS_ERR.ILLEGAL_TRANSITION(`A ${row.status} run cannot be resumed.`, { run_id: row.id, status: row.status });
    const stepId = ctx.params.step_id ?? row.pause.step_id;
    const waiting = (await this.runQueries.receipts(row.id)).find((r) => r.step_id === stepId && r.status === 'waiting');
    const pause = waiting?.directive?.pause as PauseInfo | undefined;
    if (!pause || (pause.kind !== 'runtime_approval' && pause.kind !== 'question')) {
      throw ERRORS.VALIDATION_FAILED(`Step '${stepId}' does not wait for a decision.`, [{ field: 'step_id', message: `Step '${stepId}' of this run does not wait for a decision.`, type: 'notWaiting' }]);
    }
    if ((pause.kind === 'question') !== (ctx.params.decision === 'answer')) {
      throw ERRORS.VALIDATION_FAILED(`Step '${stepId}' waits for ${pause.kind === 'question' ? 'an answer' : 'an approval'}.`, [{ field: 'decision', message: pause.kind === 'question' ? 'Use decision "answer".' : 'Use "approve" or "reject".', type: 'wrongDecision' }]);
    }
    const decided = { decided_by: who.id, decided_at: new Date().toISOString(), comment: ctx.params.comment ?? null };
    const decision = durableDecision(pause, { decision: ctx.params.decision === 'reject' ? 'reject' : 'approve', answer: ctx.params.answer }, decided);
    const updated = await this.control.approveInvocation(who.entity_id, row.id, stepId, decision);
    if (!updated) throw WORKFLOWS_ERR.ILLEGAL_TRANSITION('The run no longer waits on that step.', { run_id: row.id });
    await requeue(this, updated);
    return runSummary(updated);
  },
};
