import type { AssigneeType } from '../domain/constants.ts';
import type { TaskStatus } from '../domain/state-machine.ts';
import { defineKeyset, keysetSql, type KeyColumn, type Keyset, type PageStart } from '../../../kernel/tenancy/cursor.ts';
import { keysetOrder } from '../../../kernel/tenancy/keyset-sql.ts';
import { BindList, likePattern } from './sql-builder.ts';

/**
 * The list and board queries, as SQL text plus bind values (no I/O here). Every statement
 * starts with the entity scope; the indexes of migration 002 serve the common shapes
 * (workspace + status, status, board column; newest first).
 */

export interface TaskFilters {
  status?: TaskStatus[];
  workspace_id?: string;
  category_id?: string;
  /** an assignee id, or 'none' for tasks left to the master agent */
  assignee?: string;
  assignee_type?: AssigneeType;
  priority?: number[];
  q?: string;
  deadline_from?: Date;
  deadline_to?: Date;
  sla_breached?: boolean;
  parent_id?: string;
}

export const SORT_FIELDS = ['created_at', 'updated_at', 'priority', 'deadline', 'title', 'status'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export interface SortKey {
  field: SortField;
  descending: boolean;
}

export const DEFAULT_SORT: SortKey[] = [{ field: 'created_at', descending: true }];
export const BOARD_SORT: SortKey[] = [{ field: 'priority', descending: false }, { field: 'created_at', descending: true }];

/** `-priority,created_at` → keys; null when a field is unknown or repeated. */
export function parseSort(text: string): SortKey[] | null {
  const keys: SortKey[] = [];
  for (const raw of text.split(',').map((s) => s.trim())) {
    const descending = raw.startsWith('-');
    const field = descending ? raw.slice(1) : raw;
    if (!(SORT_FIELDS as readonly string[]).includes(field) || keys.some((k) => k.field === field)) return null;
    keys.push({ field: field as SortField, descending });
  }
  return keys.length ? keys : null;
}

const KEY_TYPES: Record<SortField, Pick<KeyColumn, 'type' | 'nullable'>> = {
  created_at: { type: 'timestamptz' },
  updated_at: { type: 'timestamptz' },
  priority: { type: 'smallint' },
  deadline: { type: 'timestamptz', nullable: true },
  title: { type: 'text' },
  status: { type: 'text' },
};

/** The keyset of an order: its keys, ties broken by id in the direction of the last key, so paging is stable. */
export function taskKeyset(sort: SortKey[]): Keyset {
  const columns: KeyColumn[] = sort.map((k) => ({ expr: k.field, ...KEY_TYPES[k.field], descending: k.descending }));
  columns.push({ expr: 'id', type: 'uuid', descending: sort[sort.length - 1]?.descending ?? false });
  return defineKeyset(`tasks:${sort.map((k) => `${k.descending ? '-' : ''}${k.field}`).join(',')}`, columns);
}

/** ORDER BY text (deadline's nulls last), from the keyset. */
export function orderBy(sort: SortKey[]): string {
  return keysetOrder(taskKeyset(sort).columns);
}

/** WHERE text for the filters, always scoped to the entity. */
export function whereOf(entityId: string, filters: TaskFilters, binds: BindList, now: Date): string {
  const clauses = [`entity_id = ${binds.add(entityId)}`];
  if (filters.workspace_id) clauses.push(`workspace_id = ${binds.add(filters.workspace_id)}`);
  if (filters.status?.length) {
    clauses.push(filters.status.length === 1 ? `status = ${binds.add(filters.status[0])}` : `status = ANY(${binds.add(filters.status)}::varchar[])`);
  }
  if (filters.category_id) clauses.push(`category_id = ${binds.add(filters.category_id)}`);
  if (filters.assignee === 'none') clauses.push('assignee_id IS NULL');
  else if (filters.assignee) clauses.push(`assignee_id = ${binds.add(filters.assignee)}`);
  if (filters.assignee_type) clauses.push(`assignee_type = ${binds.add(filters.assignee_type)}`);
  if (filters.priority?.length) clauses.push(`priority = ANY(${binds.add(filters.priority)}::smallint[])`);
  if (filters.q) {
    const pattern = binds.add(likePattern(filters.q));
    clauses.push(`(title ILIKE ${pattern} OR description ILIKE ${pattern})`);
  }
  if (filters.deadline_from) clauses.push(`deadline >= ${binds.add(filters.deadline_from)}`);
  if (filters.deadline_to) clauses.push(`deadline <= ${binds.add(filters.deadline_to)}`);
  if (filters.parent_id) clauses.push(`parent_id = ${binds.add(filters.parent_id)}`);
  if (filters.sla_breached !== undefined) {
    const at = binds.add(now);
    const breached = `(sla_response_due_at < COALESCE(responded_at, ${at}) OR sla_resolution_due_at < COALESCE(resolved_at, ${at}))`;
    clauses.push(filters.sla_breached ? `sla_policy_id IS NOT NULL AND ${breached}` : `NOT (sla_policy_id IS NOT NULL AND COALESCE(${breached}, false))`);
  }
  return clauses.join(' AND ');
}

/** Only status and workspace filter the list: its total can come from the counters. */
export function countableFromCounters(filters: TaskFilters): boolean {
  return Object.entries(filters).every(([key, value]) => value === undefined || key === 'status' || key === 'workspace_id');
}

/** Counter rows summed per status (tasks without a workspace are counted under the nil UUID). */
function countersSql(entityId: string, filters: TaskFilters, binds: BindList): string {
  const clauses = [`entity_id = ${binds.add(entityId)}`];
  if (filters.workspace_id) clauses.push(`workspace_key = ${binds.add(filters.workspace_id)}`);
  if (filters.status?.length) clauses.push(`status = ANY(${binds.add(filters.status)}::varchar[])`);
  return `SELECT status, sum(n)::int AS n FROM task_status_counts WHERE ${clauses.join(' AND ')} GROUP BY status`;
}

export function countersQuery(entityId: string, filters: TaskFilters): { sql: string; bind: unknown[] } {
  const binds = new BindList();
  return { sql: countersSql(entityId, filters, binds), bind: binds.values };
}

/**
 * A page of tasks (limit + 1 rows, each with its keyset key: kernel/tenancy/cursor.ts), after a
 * cursor's key or `offset` rows in. When the counters can give the total, every row carries it
 * as `total_count` (one round trip); otherwise `withTotal` is false and the total is counted
 * separately.
 */
export function listQuery(entityId: string, filters: TaskFilters, sort: SortKey[], page: PageStart, now: Date): { sql: string; bind: unknown[]; withTotal: boolean } {
  const binds = new BindList();
  const keyset = keysetSql(taskKeyset(sort), page.after, (v) => binds.add(v));
  const where = [whereOf(entityId, filters, binds, now), keyset.where].filter(Boolean).join(' AND ');
  const withTotal = countableFromCounters(filters);
  const total = withTotal ? `, (SELECT COALESCE(sum(n), 0)::int FROM (${countersSql(entityId, filters, binds)}) c) AS total_count` : '';
  const sql = `SELECT *, ${keyset.select}${total} FROM tasks WHERE ${where} ORDER BY ${keyset.order} LIMIT ${binds.add(page.limit + 1)} OFFSET ${binds.add(page.offset)}`;
  return { sql, bind: binds.values, withTotal };
}

export function countQuery(entityId: string, filters: TaskFilters, now: Date): { sql: string; bind: unknown[] } {
  const binds = new BindList();
  return { sql: `SELECT status, count(*)::int AS n FROM tasks WHERE ${whereOf(entityId, filters, binds, now)} GROUP BY status`, bind: binds.values };
}

/** What a board card needs (no description, files or run details: those come with GET /tasks/{id}). */
export const CARD_COLUMNS = [
  'id', 'entity_id', 'workspace_id', 'parent_id', 'title', 'status', 'board_column', 'priority', 'assignee_type', 'assignee_id', 'deadline', 'category_id', 'requester',
  'sla_policy_id', 'sla_response_due_at', 'sla_resolution_due_at', 'responded_at', 'resolved_at', 'version', 'created_at', 'updated_at',
] as const;

/**
 * The first `perColumn` tasks of each of `columns`, in board order: one statement, one index
 * range per column. When the counters can count the board, every row also carries them as
 * `status_counts` (`withCounts`), so a board is one round trip.
 */
export function boardItemsQuery(entityId: string, filters: TaskFilters, columns: string[], sort: SortKey[], perColumn: number, now: Date): { sql: string; bind: unknown[]; withCounts: boolean } {
  const binds = new BindList();
  const where = whereOf(entityId, filters, binds, now);
  const limit = binds.add(perColumn);
  const order = orderBy(sort);
  const select = [...CARD_COLUMNS, '(pending_request IS NOT NULL) AS awaiting_input'].join(', ');
  const branches = columns.map((column) => `(SELECT ${select} FROM tasks WHERE ${where} AND board_column = ${binds.add(column)} ORDER BY ${order} LIMIT ${limit})`);
  const withCounts = countableFromCounters(filters);
  if (!withCounts) return { sql: branches.join(' UNION ALL '), bind: binds.values, withCounts };
  const counts = `(SELECT json_object_agg(status, n) FROM (${countersSql(entityId, filters, binds)}) c) AS status_counts`;
  return { sql: `SELECT u.*, ${counts} FROM (${branches.join(' UNION ALL ')}) u`, bind: binds.values, withCounts };
}
