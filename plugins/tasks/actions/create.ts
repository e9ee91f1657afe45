import type { Context } from 'moleculer';
import { inlineClaimOf, markClaimTaken } from '../../../kernel/idempotency/inline.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { normalizeIds, TASK_FIELD_PARAMS, TITLE_RULE, type TaskFieldInput } from '../fields.ts';
import { createTask, emitCreated } from '../ops/create.ts';
import { taskView } from '../db/task-row.ts';
import { TASK_SCHEMA } from '../schemas.ts';
import { created, dbOf, userActor, type TasksAction } from '../service.ts';

/** `POST /api/v1/tasks`: a new task; with an agent assigned, that agent's run is requested at once. */
export const create: TasksAction = {
  rest: 'POST /',
  summary: 'Create a task',
  description: 'A task starts in `created` unless `status` names another initial status (see `GET /tasks/constants`). With an agent assignee, the run request is emitted and recorded in the execution record as `dispatched`.',
  tags: ['tasks'],
  params: { ...TASK_FIELD_PARAMS, title: TITLE_RULE },
  response: { 201: { description: 'Created', schema: TASK_SCHEMA } },
  // the Idempotency-Key is claimed in the task's insert: a keyed create costs no extra round trip
  idempotency: 'inline',
  async handler(ctx: Context<TaskFieldInput & { title: string }>) {
    const actor = userActor(ctx);
    const claim = inlineClaimOf(ctx);
    const result = await createTask(ctx, dbOf(this), entityOf(ctx), normalizeIds(ctx.params), actor, { claim });
    if (claim) markClaimTaken(ctx, claim);
    emitCreated(ctx, result, actor);
    created(ctx);
    return taskView(result.row);
  },
};
