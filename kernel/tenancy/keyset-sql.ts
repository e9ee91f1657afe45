/**
 * The SQL of a keyset (kernel/tenancy/cursor.ts): its ORDER BY, the key each row carries and
 * the predicate "after this key", all from one list of columns, so the three always agree.
 * A nullable column sorts its nulls last in either direction.
 */

export type KeyValue = string | number | null;
export type KeyType = 'timestamptz' | 'uuid' | 'text' | 'smallint' | 'integer';

export interface KeyColumn {
  /** a column (or qualified column) of the statement */
  expr: string;
  type: KeyType;
  descending: boolean;
  nullable?: boolean;
}

/** The column every row of a keyset page carries its key in (json: values exactly as PostgreSQL has them). */
export const KEYSET_COLUMN = 'page_key';

export function keysetSelect(columns: KeyColumn[]): string {
  return `json_build_array(${columns.map((c) => c.expr).join(', ')}) AS ${KEYSET_COLUMN}`;
}

export function keysetOrder(columns: KeyColumn[]): string {
  return columns.map((c) => `${c.expr} ${c.descending ? 'DESC' : 'ASC'}${c.nullable ? ' NULLS LAST' : ''}`).join(', ');
}

/**
 * The rows after `key` in keyset order. All columns non-null and one direction: one row
 * comparison (an index on those columns serves it); otherwise the lexicographic expansion,
 * with nulls after every value.
 */
export function keysetAfter(columns: KeyColumn[], key: KeyValue[], bind: (value: KeyValue) => string): string {
  const values = key.map((v, i) => (v === null ? null : `${bind(v)}::${columns[i].type}`));
  const direction = columns[0].descending;
  if (columns.every((c) => !c.nullable && c.descending === direction) && values.every((v) => v !== null)) {
    return `(${columns.map((c) => c.expr).join(', ')}) ${direction ? '<' : '>'} (${values.join(', ')})`;
  }
  const equal = (c: KeyColumn, v: string | null) => (v === null ? `${c.expr} IS NULL` : `${c.expr} = ${v}`);
  const beyond = (c: KeyColumn, v: string | null): string | undefined => {
    if (v === null) return undefined; // nothing sorts after a null
    const past = `${c.expr} ${c.descending ? '<' : '>'} ${v}`;
    return c.nullable ? `(${past} OR ${c.expr} IS NULL)` : past;
  };
  const terms: string[] = [];
  columns.forEach((column, i) => {
    const after = beyond(column, values[i]);
    if (after) terms.push([...columns.slice(0, i).map((c, j) => equal(c, values[j])), after].join(' AND '));
  });
  return `(${terms.map((t) => `(${t})`).join(' OR ')})`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// what PostgreSQL writes for a timestamptz in JSON: ISO 8601, microseconds, the session's offset
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-](\d{2})(:\d{2}){0,2})$/;
const TEXT_MAX = 2000;
const INTEGER_RANGE: Record<'smallint' | 'integer', [number, number]> = { smallint: [-32_768, 32_767], integer: [-2_147_483_648, 2_147_483_647] };

function timestampProblem(value: string): string | undefined {
  const m = TIMESTAMP.exec(value);
  if (!m) return 'is not a timestamp';
  const [year, month, day, hour, minute, second, offsetHours] = [m[1], m[2], m[3], m[4], m[5], m[6], m[9]].map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real && hour < 24 && minute < 60 && second < 60 && !(offsetHours > 15) ? undefined : 'is not a timestamp';
}

/** Why `value` cannot be a key value of `column` (checked before it is bound), or undefined. */
export function keyValueProblem(column: KeyColumn, value: unknown): string | undefined {
  if (value === null) return column.nullable ? undefined : 'is null';
  switch (column.type) {
    case 'timestamptz':
      return typeof value === 'string' ? timestampProblem(value) : 'is not a timestamp';
    case 'uuid':
      return typeof value === 'string' && UUID.test(value) ? undefined : 'is not a uuid';
    case 'text':
      return typeof value === 'string' && value.length <= TEXT_MAX && !value.includes('\u0000') ? undefined : 'is not a text key';
    default: {
      const [min, max] = INTEGER_RANGE[column.type];
      return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? undefined : `is not a ${column.type}`;
    }
  }
}
