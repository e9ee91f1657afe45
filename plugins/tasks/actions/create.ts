import type { Context } from 'moleculer';
import { answerWith, inlineClaimOf, markClaimTaken } from '../../../kernel/idempotency/inline.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { normalizeIds, TASK_FIELD_PARAMS, TITLE_RULE, type TaskFieldInput } from '../fields.ts';
import { createTask, emitCreated } from '../ops/create.ts';
import { taskView, type TaskRow } from '../db/task-row.ts';
import { TASK_SCHEMA } from '../schemas.ts';
import { created, dbOf, sqlOf, userActor, type TasksAction } from '../service.ts';

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
    const now = new Date();
    const offered = inlineClaimOf(ctx);
    const claimFor = offered && ((expected: TaskRow) => answerWith(offered, 201, taskView(expected, now)));
    const result = await createTask(ctx, dbOf(this), entityOf(ctx), normalizeIds(ctx.params), actor, { now, claimFor, sql: sqlOf(this) });
    if (result.claim) markClaimTaken(ctx, result.claim);
    emitCreated(ctx, result, actor);
    created(ctx);
    return taskView(result.row, now);
  },
};
