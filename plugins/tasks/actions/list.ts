import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { afterCursor, CURSOR_PARAMS, cursorPage, cursorPageSchema } from '../../../kernel/tenancy/cursor.ts';
import { PAGING_PARAMS } from '../../../kernel/tenancy/paging.ts';
import { DEFAULT_SORT, listQuery, taskKeyset } from '../db/list-query.ts';
import { taskView, type TaskRow } from '../db/task-row.ts';
import { countByStatus, FILTER_PARAMS, filtersOf, SORT_PARAM, sortOf, type FilterParams } from '../ops/query.ts';
import { TASK_SCHEMA } from '../schemas.ts';
import { dbOf, type TasksAction } from '../service.ts';

/** `GET /api/v1/tasks`: filtered, sorted, paged. */
export const list: TasksAction = {
  rest: 'GET /',
  summary: 'List tasks',
  description: 'Filters combine with AND; `status` and `priority` may repeat (`?status=pending&status=blocked`). Default order: newest first. Pages by `offset` or by `cursor` (the `next_cursor` of the previous page, under the same sort).',
  tags: ['tasks'],
  params: { ...FILTER_PARAMS, ...SORT_PARAM, ...PAGING_PARAMS, ...CURSOR_PARAMS },
  response: cursorPageSchema(TASK_SCHEMA),
  async handler(ctx: Context<FilterParams & { limit: number; offset: number; cursor?: string }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const now = new Date();
    const filters = filtersOf(ctx.params);
    const sort = sortOf(ctx.params.sort, DEFAULT_SORT);
    const keyset = taskKeyset(sort);
    const page = { limit: ctx.params.limit, offset: ctx.params.offset, after: afterCursor(keyset, ctx.params) };
    const query = listQuery(entityId, filters, sort, page, now);
    const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
    const [rows, counted] = await Promise.all([
      db.query<TaskRow & { total_count?: number }>(query.sql, { bind: query.bind, type: QueryTypes.SELECT }),
      query.withTotal ? undefined : countByStatus(db, entityId, filters, now),
    ]);
    // a page past the end carries no total: count it then (or it is 0 when the first page is empty)
    const total = counted ? sum(counted) : (rows[0]?.total_count ?? (page.offset > 0 || page.after ? sum(await countByStatus(db, entityId, filters, now)) : 0));
    const { items, ...rest } = cursorPage(keyset, rows, page);
    return { items: items.map((r) => taskView(r, now)), total, ...rest };
  },
};
