import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { getTask } from '../db/task-store.ts';
import { iso, taskView } from '../db/task-row.ts';
import { TASK_DETAIL_SCHEMA } from '../schemas.ts';
import { dbOf, type TasksAction } from '../service.ts';

const MAX_SUBTASKS = 500;

/** `GET /api/v1/tasks/{id}`: the task with its execution record and subtasks. */
export const get: TasksAction = {
  rest: 'GET /:id',
  summary: 'Get a task with its execution record and subtasks',
  tags: ['tasks'],
  params: { id: { type: 'string', min: 1, max: 64 } },
  response: TASK_DETAIL_SCHEMA,
  async handler(ctx: Context<{ id: string }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const row = await getTask(db, entityId, ctx.params.id);
    const [execution, subtasks] = await Promise.all([
      db.query<{ id: string; kind: string; data: Record<string, unknown>; created_at: Date }>(
        'SELECT id, kind, data, created_at FROM task_execution_entries WHERE task_id = $1 AND entity_id = $2 ORDER BY created_at, id',
        { bind: [row.id, entityId], type: QueryTypes.SELECT },
      ),
      db.query<{ id: string; title: string; status: string }>(
        `SELECT id, title, status FROM tasks WHERE parent_id = $1 AND entity_id = $2 ORDER BY created_at, id LIMIT ${MAX_SUBTASKS}`,
        { bind: [row.id, entityId], type: QueryTypes.SELECT },
      ),
    ]);
    return {
      ...taskView(row),
      execution_record: execution.map((e) => ({ id: e.id, kind: e.kind, data: e.data, created_at: iso(e.created_at) })),
      subtasks,
    };
  },
};
