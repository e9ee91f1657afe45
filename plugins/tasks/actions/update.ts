import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { normalizeIds, TASK_FIELD_PARAMS, type TaskFieldInput } from '../fields.ts';
import { updateTask } from '../ops/update.ts';
import { emitStatusChanged } from '../ops/move.ts';
import { emitDispatches } from '../ops/dispatch.ts';
import { taskView } from '../db/task-row.ts';
import { TASK_SCHEMA } from '../schemas.ts';
import { dbOf, emitAfterCommit, userActor, type TasksAction } from '../service.ts';
import { taskWorkspace } from '../workspace-of.ts';

/** `PUT /api/v1/tasks/{id}`: change fields; a new `status` goes through the state machine (409 if illegal). */
export const update: TasksAction = {
  rest: 'PUT /:id',
  workspaceOf: taskWorkspace,
  summary: 'Update a task',
  description: 'Only the fields sent change. A new `status` must be a legal move from the current one (409 naming the allowed targets otherwise). Send `version` to make the write conditional on the version you read (409 when it moved on).',
  tags: ['tasks'],
  params: { id: { type: 'string', min: 1, max: 64 }, ...TASK_FIELD_PARAMS, version: { type: 'number', integer: true, min: 1, optional: true } },
  response: TASK_SCHEMA,
  async handler(ctx: Context<TaskFieldInput & { id: string; version?: number }>) {
    const actor = userActor(ctx);
    const { id, ...input } = ctx.params;
    const result = await updateTask(ctx, dbOf(this), entityOf(ctx), id, normalizeIds(input), actor);
    if (result.changed) {
      emitAfterCommit(ctx, 'task.updated', { entity_id: result.row.entity_id, task_id: result.row.id, version: Number(result.row.version), actor });
      if (result.movedFrom) emitStatusChanged(ctx, { row: result.row, from: result.movedFrom }, actor, 'update');
      emitDispatches(ctx, result.row, result.execution);
    }
    return taskView(result.row);
  },
};
