import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { afterCursor, CURSOR_PARAMS, cursorPage, cursorPageSchema } from '../../../kernel/tenancy/cursor.ts';
import { PAGING_PARAMS } from '../../../kernel/tenancy/paging.ts';
import { TASK_FEED_KEYSETS, taskFeedPage } from '../db/task-feed.ts';
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
}

/** `GET /api/v1/tasks/{id}/history`: the append-only audit of every change, oldest first. */
export const history: TasksAction = {
  rest: 'GET /:id/history',
  summary: 'The audit trail of a task',
  description: 'Oldest first; pages by `offset` or by `cursor` (the `next_cursor` of the previous page).',
  tags: ['tasks'],
  params: { id: { type: 'string', min: 1, max: 64 }, ...PAGING_PARAMS, ...CURSOR_PARAMS },
  response: cursorPageSchema(HISTORY_ENTRY_SCHEMA),
  async handler(ctx: Context<{ id: string; limit: number; offset: number; cursor?: string }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const page = { limit: ctx.params.limit, offset: ctx.params.offset, after: afterCursor(TASK_FEED_KEYSETS.task_history, ctx.params) };
    const task = await getTask(db, entityId, ctx.params.id);
    const { rows, total } = await taskFeedPage<HistoryRow>(db, 'task_history', 'id, action, actor_type, actor_id, changes, created_at', { entityId, taskId: task.id }, page);
    const { items, ...rest } = cursorPage(TASK_FEED_KEYSETS.task_history, rows, page);
    return {
      items: items.map((r) => ({ id: r.id, action: r.action, actor: { type: r.actor_type, id: r.actor_id }, changes: r.changes, created_at: iso(r.created_at) })),
      total,
      ...rest,
    };
  },
};
