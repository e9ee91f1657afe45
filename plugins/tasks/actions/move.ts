import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { emitStatusChanged, moveTask } from '../ops/move.ts';
import { taskView } from '../db/task-row.ts';
import { TASK_SCHEMA } from '../schemas.ts';
import { STATUS_RULE } from '../fields.ts';
import { dbOf, userActor, type TasksAction } from '../service.ts';
import { taskWorkspace } from '../workspace-of.ts';

/** `POST /api/v1/tasks/{id}/move`: a validated status transition. */
export const move: TasksAction = {
  rest: 'POST /:id/move',
  workspaceOf: taskWorkspace,
  summary: 'Move a task to another status',
  description: 'Legal only along the state machine (`GET /tasks/constants`); otherwise 409 `TASKS_ERR_ILLEGAL_TRANSITION` naming `current_status` and `allowed_targets`. Of two concurrent moves of one task exactly one wins; the other gets 409 `TASKS_ERR_VERSION_CONFLICT`.',
  tags: ['tasks'],
  params: {
    id: { type: 'string', min: 1, max: 64 },
    status: STATUS_RULE,
    version: { type: 'number', integer: true, min: 1, optional: true },
  },
  response: TASK_SCHEMA,
  async handler(ctx: Context<{ id: string; status: string; version?: number }>) {
    const actor = userActor(ctx);
    const result = await moveTask(dbOf(this), { entityId: entityOf(ctx), taskId: ctx.params.id, to: ctx.params.status, actor, expectedVersion: ctx.params.version, via: 'move' });
    emitStatusChanged(ctx, result, actor, 'move');
    return taskView(result.row);
  },
};
