import { list, own, record, str } from '../graph.ts';
import type { ExpressionTranslator } from './translate.ts';

/**
 * n8n's conditions (IF, Filter, Switch rules) as the item conditions of our filter, condition
 * and switch nodes: `{field, operator, value}` on each item. The left side must be a field of
 * the item (`{{ $json.x }}`); the right side a value or an expression not reading the item.
 */
export interface ItemCondition {
  field: string;
  operator: string;
  value?: unknown;
}

/** n8n v2 filter operations (`operator.operation`) -> ours. */
const V2_OPERATIONS: Record<string, string> = {
  equals: 'eq', notEquals: 'ne', gt: 'gt', gte: 'gte', lt: 'lt', lte: 'lte', after: 'gt', afterOrEquals: 'gte', before: 'lt', beforeOrEquals: 'lte',
  contains: 'contains', notContains: 'not_contains', startsWith: 'starts_with', notStartsWith: 'not_starts_with', endsWith: 'ends_with', notEndsWith: 'not_ends_with',
  regex: 'matches', notRegex: 'not_matches', exists: 'exists', notExists: 'not_exists', empty: 'empty', notEmpty: 'not_empty', true: 'truthy', false: 'falsy',
};
/** n8n v1 operations (IF v1, Switch v1/v2 rules). */
const V1_OPERATIONS: Record<string, string> = {
  equal: 'eq', notEqual: 'ne', larger: 'gt', largerEqual: 'gte', smaller: 'lt', smallerEqual: 'lte', contains: 'contains', notContains: 'not_contains',
  startsWith: 'starts_with', notStartsWith: 'not_starts_with', endsWith: 'ends_with', notEndsWith: 'not_ends_with', regex: 'matches', notRegex: 'not_matches',
  isEmpty: 'empty', isNotEmpty: 'not_empty',
};
const UNARY = new Set(['exists', 'not_exists', 'empty', 'not_empty', 'truthy', 'falsy']);

/** A regex as n8n writes it (`/pattern/flags` or the bare pattern): flags other than none cannot be carried over. */
function pattern(value: unknown, problems: string[]): unknown {
  const m = typeof value === 'string' ? /^\/([\s\S]*)\/([a-z]*)$/.exec(value) : null;
  if (!m) return value;
  if (m[2]) problems.push(`a regex with flags /${m[2]}: the pattern engine here takes none`);
  return m[1];
}

function condition(left: unknown, opName: unknown, right: unknown, table: Record<string, string>, tr: ExpressionTranslator, approx: string[]): ItemCondition | undefined {
  const field = tr.field(left, 'a condition\'s left value');
  const operator = own(table, opName);
  if (!operator) {
    tr.problems.push(`condition operation '${str(opName) ?? JSON.stringify(opName)}' has no equivalent here`);
    return undefined;
  }
  if (field === undefined) return undefined;
  if (UNARY.has(operator)) return { field, operator };
  const before = tr.problems.length;
  const value = tr.value(right);
  if (typeof value === 'string' && /\{\{\s*item\b/.test(value)) tr.problems.push('a condition\'s right value reads the item ($json): only a fixed value or another node\'s data is compared here');
  if (['gt', 'gte', 'lt', 'lte'].includes(operator) && typeof right === 'string' && /T\d\d:/.test(right)) approx.push('date-times are compared as text or numbers, not parsed');
  return tr.problems.length > before ? undefined : { field, operator, value: operator.endsWith('matches') ? pattern(value, tr.problems) : value };
}

/** IF / Filter / Switch-rule conditions, v2 (`conditions.conditions`, `combinator`) or v1 (`conditions.<type>[]`, `combineOperation`). */
export function readConditions(raw: unknown, combineRaw: unknown, tr: ExpressionTranslator, approx: string[]): { conditions: ItemCondition[]; combine: 'and' | 'or' } | undefined {
  const conds = record(raw);
  const out: ItemCondition[] = [];
  let combine: 'and' | 'or' = 'and';
  if (Array.isArray(conds.conditions)) {
    for (const c of list(conds.conditions).map(record)) {
      const done = condition(c.leftValue, record(c.operator).operation, c.rightValue, V2_OPERATIONS, tr, approx);
      if (done) out.push(done);
    }
    combine = conds.combinator === 'or' ? 'or' : 'and';
    if (record(conds.options).caseSensitive === false) approx.push('compared case-sensitively (the n8n node ignored case)');
  } else {
    for (const [type, items] of Object.entries(conds)) {
      for (const c of list(items).map(record)) {
        if (type === 'dateTime') approx.push('date-times are compared as text or numbers, not parsed');
        const done = condition(c.value1, c.operation, c.value2, V1_OPERATIONS, tr, approx);
        if (done) out.push(done);
      }
    }
    combine = combineRaw === 'any' || combineRaw === 'or' ? 'or' : 'and';
  }
  if (out.length === 0 && tr.problems.length === 0) tr.problems.push('no condition this importer reads');
  return tr.problems.length ? undefined : { conditions: out, combine };
}
