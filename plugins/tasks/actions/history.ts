import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { getTask } from '../db/task-store.ts';
import { iso } from '../db/task-row.ts';
import { HISTORY_ENTRY_SCHEMA } from '../schemas.ts';
import { dbOf, type TasksAction } from '../service.ts';

interface HistoryRow {
  id: string;
  action: string;
  actor_type: string;
  actor_id: string | null;
  changes: unknown[];
  created_at: Date;
  total: number;
}

/** `GET /api/v1/tasks/{id}/history`: the append-only audit of every change, oldest first. */
export const history: TasksAction = {
  rest: 'GET /:id/history',
  summary: 'The audit trail of a task',
  tags: ['tasks'],
  params: { id: { type: 'string', min: 1, max: 64 }, ...PAGING_PARAMS },
  response: pageSchema(HISTORY_ENTRY_SCHEMA),
  async handler(ctx: Context<{ id: string; limit: number; offset: number }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const task = await getTask(db, entityId, ctx.params.id);
    const rows = await db.query<HistoryRow>(
      `SELECT id, action, actor_type, actor_id, changes, created_at, count(*) OVER ()::int AS total
       FROM task_history WHERE task_id = $1 AND entity_id = $2 ORDER BY created_at, id LIMIT $3 OFFSET $4`,
      { bind: [task.id, entityId, ctx.params.limit, ctx.params.offset], type: QueryTypes.SELECT },
    );
    const total = rows[0]?.total ?? (ctx.params.offset > 0 ? await countHistory(db, task.id, entityId) : 0);
    return {
      items: rows.map((r) => ({ id: r.id, action: r.action, actor: { type: r.actor_type, id: r.actor_id }, changes: r.changes, created_at: iso(r.created_at) })),
      total,
      limit: ctx.params.limit,
      offset: ctx.params.offset,
    };
  },
};

async function countHistory(db: ReturnType<typeof dbOf>, taskId: string, entityId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM task_history WHERE task_id = $1 AND entity_id = $2', { bind: [taskId, entityId], type: QueryTypes.SELECT });
  return row?.n ?? 0;
}
