import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { BOARD_COLUMNS } from '../domain/board-columns.ts';
import { BOARD_SORT, boardItemsQuery } from '../db/list-query.ts';
import { taskCard, type CardRow } from '../db/task-row.ts';
import { countByStatus, FILTER_PARAMS, filtersOf, SORT_PARAM, sortOf, type FilterParams } from '../ops/query.ts';
import { BOARD_SCHEMA } from '../schemas.ts';
import { dbOf, type TasksAction } from '../service.ts';
import { queryInteger } from '../../../kernel/query-integer.ts';

/** `GET /api/v1/tasks/board`: the five columns with counts and their first tasks, under the list's filters. */
export const board: TasksAction = {
  rest: 'GET /board',
  summary: 'Kanban grouping with counts',
  description: 'Each column counts every matching task and carries the first `per_column` of them as cards (the task without its description and run details; default order: priority, then newest).',
  tags: ['tasks'],
  params: { ...FILTER_PARAMS, ...SORT_PARAM, per_column: queryInteger({ min: 0, max: 100, default: 10 }) },
  response: BOARD_SCHEMA,
  async handler(ctx: Context<FilterParams & { per_column: number }>) {
    const db = dbOf(this);
    const entityId = entityOf(ctx);
    const now = new Date();
    const filters = filtersOf(ctx.params);
    const sort = sortOf(ctx.params.sort, BOARD_SORT);
    const wanted = new Set(filters.status ?? BOARD_COLUMNS.flatMap((c) => c.statuses));
    const shown = ctx.params.per_column === 0 ? [] : BOARD_COLUMNS.filter((c) => c.statuses.some((s) => wanted.has(s))).map((c) => c.key as string);
    const query = shown.length ? boardItemsQuery(entityId, filters, shown, sort, ctx.params.per_column, now) : undefined;
    const [rows, counted] = await Promise.all([
      query ? db.query<CardRow & { status_counts?: Record<string, number> | null }>(query.sql, { bind: query.bind, type: QueryTypes.SELECT }) : [],
      query?.withCounts ? undefined : countByStatus(db, entityId, filters, now),
    ]);
    // the counts ride on the cards; an empty board carries none, and then counts nothing either
    const counts = counted ?? new Map(Object.entries(rows[0]?.status_counts ?? {}).map(([s, n]) => [s, Number(n)]));
    const columns = BOARD_COLUMNS.map((column) => {
      const perStatus = Object.fromEntries(column.statuses.map((s) => [s, counts.get(s) ?? 0]));
      return {
        key: column.key,
        title: column.title,
        statuses: [...column.statuses],
        count: Object.values(perStatus).reduce((a, b) => a + b, 0),
        counts: perStatus,
        items: rows.filter((r) => r.board_column === column.key).map((r) => taskCard(r, now)),
      };
    });
    return { columns, total: columns.reduce((a, c) => a + c.count, 0) };
  },
};
