import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { RETRY_MOVE } from '../domain/state-machine.ts';
import { getTask } from '../db/task-store.ts';
import { taskView } from '../db/task-row.ts';
import { changeTask } from '../ops/change.ts';
import { dispatchEntry, emitDispatches } from '../ops/dispatch.ts';
import { emitStatusChanged, moveTask } from '../ops/move.ts';
import { answerHitl, decideApproval, resumeDeliveryReview } from '../ops/runs.ts';
import { TASK_SCHEMA } from '../schemas.ts';
import { dbOf, emitAfterCommit, userActor, type TasksAction } from '../service.ts';
import { taskWorkspace } from '../workspace-of.ts';

const ID = { type: 'string', min: 1, max: 64 } as const;

/** `POST /api/v1/tasks/{id}/retry`: only a failed task; it goes back to pending and its agent is dispatched again. */
export const retry: TasksAction = {
  rest: 'POST /:id/retry',
  workspaceOf: taskWorkspace,
  summary: 'Re-run a failed task',
  description: 'Only from `failed` (409 otherwise). Moves the task to `pending` and requests a new run of its agent (the master agent when unassigned), reusing its plan unless `regenerate_plan` is true.',
  tags: ['tasks'],
  params: { id: ID, regenerate_plan: { type: 'boolean', optional: true } },
  response: TASK_SCHEMA,
  async handler(ctx: Context<{ id: string; regenerate_plan?: boolean }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const actor = userActor(ctx);
    const task = await getTask(db, entityId, ctx.params.id);
    const agentId = task.assignee_type === 'agent' ? task.assignee_id : null;
    const dispatch = dispatchEntry(agentId, 'retry', { plan: ctx.params.regenerate_plan ? 'regenerate' : 'reuse' });
    const result = await moveTask(db, { entityId, taskId: task.id, to: RETRY_MOVE.to, onlyFrom: RETRY_MOVE.from, actor, via: 'retry', execution: [dispatch], expectedVersion: Number(task.version) });
    emitStatusChanged(ctx, result, actor, 'retry');
    emitDispatches(ctx, result.row, [dispatch]);
    return taskView(result.row);
  },
};

/** `POST /api/v1/tasks/{id}/hitl-response`: answer the question a run raised (409 when none is pending). */
export const hitlResponse: TasksAction = {
  rest: 'POST /:id/hitl-response',
  workspaceOf: taskWorkspace,
  summary: 'Answer a HITL request',
  tags: ['tasks'],
  params: { id: ID, request_id: { type: 'string', min: 1, max: 64, optional: true }, response: { type: 'string', min: 1, max: 20_000 } },
  response: TASK_SCHEMA,
  async handler(ctx: Context<{ id: string; request_id?: string; response: string }>) {
    const actor = userActor(ctx);
    const now = new Date();
    const { row, decision } = await changeTask(dbOf(this), { entityId: entityOf(ctx), taskId: ctx.params.id, actor, now, decide: (task) => answerHitl(task, ctx.params.request_id, ctx.params.response, actor, now) });
    emitAfterCommit(ctx, 'task.hitl.responded', { entity_id: row.entity_id, task_id: row.id, ...decision.execution![0].data });
    return taskView(row);
  },
};

/** `POST /api/v1/tasks/{id}/approval`: approve or reject the step a run waits on (409 when none is pending). */
export const approval: TasksAction = {
  rest: 'POST /:id/approval',
  workspaceOf: taskWorkspace,
  summary: 'Decide an approval step',
  tags: ['tasks'],
  params: {
    id: ID,
    request_id: { type: 'string', min: 1, max: 64, optional: true },
    decision: { type: 'enum', values: ['approve', 'reject'] },
    comment: { type: 'string', max: 5000, optional: true },
  },
  response: TASK_SCHEMA,
  async handler(ctx: Context<{ id: string; request_id?: string; decision: 'approve' | 'reject'; comment?: string }>) {
    const actor = userActor(ctx);
    const now = new Date();
    const { row, decision } = await changeTask(dbOf(this), {
      entityId: entityOf(ctx),
      taskId: ctx.params.id,
      actor,
      now,
      decide: (task) => decideApproval(task, ctx.params.request_id, ctx.params.decision, ctx.params.comment, actor, now),
    });
    emitAfterCommit(ctx, 'task.approval.decided', { entity_id: row.entity_id, task_id: row.id, ...decision.execution![0].data });
    return taskView(row);
  },
};

/** `POST /api/v1/tasks/{id}/resume-delivery-review`: resume a run paused in delivery review, if it is as the caller saw it. */
export const resumeReview: TasksAction = {
  rest: 'POST /:id/resume-delivery-review',
  workspaceOf: taskWorkspace,
  summary: 'Resume a run paused in delivery review',
  description:
    '409 `TASKS_ERR_REVIEW_MISMATCH` (nothing changes) unless a run is paused in review at exactly `expected_plan_id` and `expected_state_version`. Resuming approves no pending action and does not complete the task.',
  tags: ['tasks'],
  params: { id: ID, expected_plan_id: { type: 'string', min: 1, max: 128 }, expected_state_version: { type: 'number', integer: true, min: 0 } },
  response: TASK_SCHEMA,
  async handler(ctx: Context<{ id: string; expected_plan_id: string; expected_state_version: number }>) {
    const actor = userActor(ctx);
    const now = new Date();
    const { row, decision } = await changeTask(dbOf(this), {
      entityId: entityOf(ctx),
      taskId: ctx.params.id,
      actor,
      now,
      decide: (task) => resumeDeliveryReview(task, ctx.params.expected_plan_id, ctx.params.expected_state_version, actor, now),
    });
    emitAfterCommit(ctx, 'task.delivery_review.resumed', { entity_id: row.entity_id, task_id: row.id, ...decision.execution![0].data });
    return taskView(row);
  },
};
