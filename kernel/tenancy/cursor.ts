import type { JSONSchema } from '../openapi/types.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { KEYSET_COLUMN, keysetAfter, keysetOrder, keysetSelect, keyValueProblem, type KeyColumn, type KeyValue } from './keyset-sql.ts';

/**
 * Cursor paging for lists that grow (tasks, runs, history, comments, activity, job runs): the
 * client passes back the `next_cursor` of a page as `?cursor=` and gets the rows after the last
 * one it saw, by a keyset on the list's sort key plus id, so rows inserted meanwhile neither
 * repeat nor push rows off a page (offset paging shifts). One `Keyset` declaration drives the
 * ORDER BY, the key each row carries (KEYSET_COLUMN) and the WHERE of the next page.
 *
 *   const keyset = defineKeyset('workflow_runs', [{ expr: 'created_at', type: 'timestamptz', descending: true }, { expr: 'id', type: 'uuid', descending: true }]);
 *   params: { ...PAGING_PARAMS, ...CURSOR_PARAMS }           // and response: cursorPageSchema(ITEM)
 *   const after = afterCursor(keyset, ctx.params);             // 422 naming `cursor` when it is not one of this list's
 *   const page = { limit, offset, after };
 *   const { rows, total } = await keysetPage(rowsOf, { columns, from: 'job_runs', where: 'entity_id = $1', bind: [entityId], keyset, page });
 *   return { ...cursorPage(keyset, rows, page), total };  // items, limit, offset (offset pages only), next_cursor
 *
 * A statement of its own (the tasks list, with its counters) uses keysetSql: the ORDER BY, the
 * key column to select and the WHERE after the cursor, and fetches limit + 1 rows itself.
 *
 * The cursor is opaque to clients (base64url of the list's name and the last row's key) and is
 * checked value by value before any of it reaches SQL: a forged one is a 422, never a 500.
 */

export type { KeyColumn, KeyValue } from './keyset-sql.ts';

export interface Keyset {
  /** names the list and its order: a cursor of another list or order is refused */
  name: string;
  /** the sort key, the last column unique (the id) */
  columns: KeyColumn[];
}

/** The longest cursor accepted (a key of a few timestamps, ids and a title fits easily). */
export const CURSOR_MAX_LENGTH = 4096;

export const CURSOR_PARAMS = {
  cursor: {
    type: 'string',
    min: 1,
    max: CURSOR_MAX_LENGTH,
    optional: true,
    description: "the `next_cursor` of the previous page: the rows after its last one, stable while rows are added (don't combine with `offset`)",
  },
} as const;

export function defineKeyset(name: string, columns: KeyColumn[]): Keyset {
  const last = columns[columns.length - 1];
  if (!last || last.nullable) throw new Error(`keyset ${name}: the last column must be a unique, non-null key (the id)`);
  return { name, columns };
}

/** The key of the row a page ended on, as the client gets it. */
export function encodeCursor(keyset: Keyset, key: KeyValue[]): string {
  return Buffer.from(JSON.stringify([keyset.name, key])).toString('base64url');
}

function refuse(message: string): never {
  throw ERRORS.VALIDATION_FAILED(`The cursor is not one this list gave: ${message}. Pass back a next_cursor unchanged, with the same sort.`, [
    { field: 'cursor', message, type: 'cursor' },
  ]);
}

/** The key a cursor carries, each value checked against its column; a 422 naming `cursor` otherwise. */
export function decodeCursor(keyset: Keyset, cursor: string): KeyValue[] {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) refuse('not base64url text');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    refuse('not a cursor');
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || !Array.isArray(decoded[1])) refuse('not a cursor');
  const [name, key] = decoded as [unknown, unknown[]];
  if (name !== keyset.name) refuse('made for another list or sort order');
  if (key.length !== keyset.columns.length) refuse('a key of another shape');
  keyset.columns.forEach((column, i) => {
    const problem = keyValueProblem(column, key[i]);
    if (problem) refuse(`its ${column.expr} ${problem}`);
  });
  return key as KeyValue[];
}

/**
 * The key to continue after, from the `cursor` param (undefined on a first or offset page);
 * `cursor` with an `offset` above 0 is a 422 naming `offset`.
 */
export function afterCursor(keyset: Keyset, params: { cursor?: string; offset?: number }): KeyValue[] | undefined {
  if (params.cursor === undefined) return undefined;
  if (params.offset) {
    throw ERRORS.VALIDATION_FAILED('Page with either cursor or offset, not both.', [{ field: 'offset', message: 'must be 0 (or left out) with a cursor', type: 'cursor' }]);
  }
  return decodeCursor(keyset, params.cursor);
}

/** Where a page starts: `offset` rows in, or after the key of a cursor. */
export interface PageStart {
  limit: number;
  offset: number;
  after?: KeyValue[];
}

/**
 * Rows fetched with LIMIT limit + 1 -> the page's fields but its total: at most `limit` items
 * (the key column taken off), `offset` when paged by offset, and `next_cursor`: the last item's
 * key when a row follows it, else null.
 */
export function cursorPage<R extends object>(keyset: Keyset, rows: R[], page: PageStart): { items: R[]; limit: number; offset?: number; next_cursor: string | null } {
  const items = rows.slice(0, page.limit);
  const keys = items.map((row) => takeKey(row as Record<string, unknown>));
  const next_cursor = rows.length > page.limit && keys.length ? encodeCursor(keyset, keys[keys.length - 1]) : null;
  return page.after ? { items, limit: page.limit, next_cursor } : { items, limit: page.limit, offset: page.offset, next_cursor };
}

function takeKey(row: Record<string, unknown>): KeyValue[] {
  const key = row[KEYSET_COLUMN];
  delete row[KEYSET_COLUMN];
  if (!Array.isArray(key)) throw new Error(`a keyset page row has no ${KEYSET_COLUMN} column (select keysetSelect)`);
  return key as KeyValue[];
}

/** A page of a list that pages by cursor too: `next_cursor` always, `offset` when paged by offset. */
export function cursorPageSchema(item: JSONSchema): JSONSchema {
  return {
    type: 'object',
    properties: {
      items: { type: 'array', items: item },
      total: { type: 'integer', description: 'rows of the whole list (under its filters), not only those after the cursor' },
      limit: { type: 'integer' },
      offset: { type: 'integer', description: 'only when paged by offset' },
      next_cursor: { type: ['string', 'null'], description: 'pass as `cursor` for the rows after this page; null on the last page' },
    },
    required: ['items', 'total', 'limit', 'next_cursor'],
  };
}

/** The SQL pieces of a keyset, in one object, for a store that builds its own statement. */
export function keysetSql(keyset: Keyset, after: KeyValue[] | undefined, bind: (value: KeyValue) => string): { select: string; order: string; where: string | undefined } {
  return { select: keysetSelect(keyset.columns), order: keysetOrder(keyset.columns), where: after ? keysetAfter(keyset.columns, after, bind) : undefined };
}

/**
 * The statement of one page of `from` under `where` (whose placeholders $1.. are `bind`): the
 * `columns`, each row's key, and the total of the whole filtered list as `total_count`, in one
 * round trip; plus the count alone, for a page past the end (no row carries the total then).
 */
export function keysetPageQuery(q: { columns: string; from: string; where: string; bind: unknown[]; keyset: Keyset; page: PageStart }): { text: string; bind: unknown[]; count: { text: string; bind: unknown[] } } {
  const bind = [...q.bind];
  const sql = keysetSql(q.keyset, q.page.after, (value) => `$${bind.push(value)}`);
  const count = `SELECT count(*) AS n FROM ${q.from} WHERE ${q.where}`;
  // limit and offset are validated integers (PAGING_PARAMS): written in, so the count's binds are the filter's
  const text = `SELECT ${q.columns}, ${sql.select}, (${count}) AS total_count FROM ${q.from}
    WHERE ${q.where}${sql.where ? ` AND ${sql.where}` : ''} ORDER BY ${sql.order} LIMIT ${Math.trunc(q.page.limit) + 1} OFFSET ${Math.trunc(q.page.offset)}`;
  return { text, bind, count: { text: count, bind: q.bind } };
}

/** Runs a statement with positional binds and returns its rows (a store's own query function). */
export type RowsOf = (text: string, bind: unknown[]) => Promise<object[]>;

/**
 * One page of a keyset list: limit + 1 rows with their keys (for cursorPage) and the total of
 * the whole filtered list, from the rows or, for a page past the end, counted again.
 */
export async function keysetPage<R extends object = Record<string, unknown>>(rowsOf: RowsOf, q: Parameters<typeof keysetPageQuery>[0]): Promise<{ rows: R[]; total: number }> {
  const statement = keysetPageQuery(q);
  const rows = (await rowsOf(statement.text, statement.bind)) as (R & { total_count: unknown })[];
  if (rows.length) return { rows, total: Number(rows[0].total_count) };
  if (q.page.offset === 0 && !q.page.after) return { rows, total: 0 };
  const [counted] = (await rowsOf(statement.count.text, statement.count.bind)) as { n: unknown }[];
  return { rows, total: Number(counted?.n ?? 0) };
}
