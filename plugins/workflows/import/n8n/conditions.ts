import { list, own, record, str } from '../graph.ts';
import { parseExpression, splitTemplate } from './expressions.ts';
import { fieldText, type ExpressionTranslator } from './translate.ts';

/**
 * n8n's conditions (IF, Filter, Switch rules) as the item conditions of our filter, condition
 * and switch nodes, evaluated per item as n8n does. A side that is a field of the item
 * (`{{ $json.x }}`) is read as a field (`field`, `value_field`); a fixed value or one not reading
 * the item (`$('Node').first()`, `$vars`) is a value; anything else (a computing expression,
 * another node's paired item) is an *operand*: the node's generated code step computes it once
 * per item and the condition reads it from there (`operand`, `value_operand`).
 */
export interface ItemCondition {
  field?: string;
  operand?: string;
  operator: string;
  value?: unknown;
  value_field?: string;
  value_operand?: string;
  ignore_case?: boolean;
  type?: 'datetime';
  zone?: string;
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
  isEmpty: 'empty', isNotEmpty: 'not_empty', after: 'gt', before: 'lt',
};
const UNARY = new Set(['exists', 'not_exists', 'empty', 'not_empty', 'truthy', 'falsy']);
const TEXT_OPERATORS = new Set(['eq', 'ne', 'contains', 'not_contains', 'starts_with', 'not_starts_with', 'ends_with', 'not_ends_with']);

/** A regex as n8n writes it (`/pattern/flags` or the bare pattern): flags other than none cannot be carried over. */
function pattern(value: unknown, problems: string[]): unknown {
  const m = typeof value === 'string' ? /^\/([\s\S]*)\/([a-z]*)$/.exec(value) : null;
  if (!m) return value;
  if (m[2]) problems.push(`a regex with flags /${m[2]}: the pattern engine here takes none`);
  return m[1];
}

type Side = { field: string } | { value: unknown } | { operand: string } | undefined;

/** An n8n parameter text as one JavaScript expression (n8n dialect): `={{ a }}` is `a`, text around expressions a template literal. */
export function sourceOf(raw: string): string {
  const parts = splitTemplate(raw.slice(1));
  if (parts.length === 1 && typeof parts[0] !== 'string') return parts[0].expression.trim();
  return '`' + parts.map((p) => (typeof p === 'string' ? p.replace(/[`\\]|\$\{/g, (c) => `\\${c}`) : `\${${p.expression.trim()}}`)).join('') + '`';
}

/** Whether an expression's value is the same for every item (a fixed reference: a variable, a node's first or all items, the first input item). */
function itemIndependent(expression: string): boolean {
  const parsed = parseExpression(expression);
  if (parsed.kind !== 'reference') return false;
  const { ref } = parsed;
  return ref.root === 'vars' || ref.root === 'input' || (ref.root === 'node' && ref.pick !== 'item');
}

/** One side of a condition: a field of the item, a value (the right side only), or an operand computed per item. */
function side(raw: unknown, tr: ExpressionTranslator, left: boolean): Side {
  const expression = typeof raw === 'string' && raw.startsWith('=') && raw.includes('{{');
  if (!expression) {
    if (!left) return { value: tr.value(raw) };
    const key = tr.operand(JSON.stringify(typeof raw === 'string' && raw.startsWith('=') ? raw.slice(1) : (raw ?? null)));
    return key === undefined ? undefined : { operand: key };
  }
  const whole = /^=\s*\{\{([\s\S]*)\}\}\s*$/.exec(raw);
  const parsed = whole && !whole[1].includes('}}') ? parseExpression(whole[1]) : undefined;
  if (parsed?.kind === 'reference' && parsed.ref.root === 'json') {
    const field = fieldText(parsed.ref.path);
    if (field !== undefined) return { field };
  }
  const parts = splitTemplate(raw.slice(1)).filter((p) => typeof p !== 'string');
  if (!left && parts.every((p) => itemIndependent(p.expression))) return { value: tr.value(raw) };
  const key = tr.operand(sourceOf(raw));
  return key === undefined ? undefined : { operand: key };
}

interface ConditionOptions {
  /** n8n's operator type (string, number, dateTime, boolean, array, object) */
  type?: string;
  ignoreCase: boolean;
}

function condition(left: unknown, opName: unknown, right: unknown, table: Record<string, string>, options: ConditionOptions, tr: ExpressionTranslator, approx: string[]): ItemCondition | undefined {
  const operator = own(table, opName);
  if (!operator) {
    tr.problems.push(`condition operation '${str(opName) ?? JSON.stringify(opName)}' has no equivalent here`);
    return undefined;
  }
  const before = tr.problems.length;
  const l = side(left, tr, true);
  const out: Partial<ItemCondition> = { operator };
  if (l && 'field' in l) out.field = l.field;
  else if (l && 'operand' in l) out.operand = l.operand;
  if (!UNARY.has(operator)) {
    const r = side(right, tr, false);
    if (r && 'field' in r) out.value_field = r.field;
    else if (r && 'operand' in r) out.value_operand = r.operand;
    else if (r) out.value = operator.endsWith('matches') ? pattern(r.value, tr.problems) : r.value;
    if (operator.endsWith('matches') && (out.value_field !== undefined || out.value_operand !== undefined)) tr.problems.push("a regex read from the item: the pattern here is a fixed value or another node's data");
  }
  if (options.type === 'dateTime') Object.assign(out, { type: 'datetime', zone: tr.zone });
  if (options.ignoreCase && (options.type === 'string' || options.type === 'array') && TEXT_OPERATORS.has(operator)) out.ignore_case = true;
  if (options.ignoreCase && operator.endsWith('matches')) approx.push('a regex is matched case-sensitively (the n8n node ignored case)');
  return tr.problems.length > before ? undefined : (out as ItemCondition);
}

/** IF / Filter / Switch-rule conditions, v2 (`conditions.conditions`, `combinator`) or v1 (`conditions.<type>[]`, `combineOperation`); `caseSensitive` false: the node's own ignore-case option. */
export function readConditions(raw: unknown, combineRaw: unknown, tr: ExpressionTranslator, approx: string[], caseSensitive = true): { conditions: ItemCondition[]; combine: 'and' | 'or' } | undefined {
  const conds = record(raw);
  const out: ItemCondition[] = [];
  let combine: 'and' | 'or' = 'and';
  if (Array.isArray(conds.conditions)) {
    const ignoreCase = record(conds.options).caseSensitive === false || !caseSensitive;
    for (const c of list(conds.conditions).map(record)) {
      const op = record(c.operator);
      const done = condition(c.leftValue, op.operation, c.rightValue, V2_OPERATIONS, { type: str(op.type), ignoreCase }, tr, approx);
      if (done) out.push(done);
    }
    combine = conds.combinator === 'or' ? 'or' : 'and';
  } else {
    for (const [type, items] of Object.entries(conds)) {
      for (const c of list(items).map(record)) {
        const done = condition(c.value1, c.operation, c.value2, V1_OPERATIONS, { type, ignoreCase: !caseSensitive }, tr, approx);
        if (done) out.push(done);
      }
    }
    combine = combineRaw === 'any' || combineRaw === 'or' ? 'or' : 'and';
  }
  if (out.length === 0 && tr.problems.length === 0) tr.problems.push('no condition this importer reads');
  return tr.problems.length ? undefined : { conditions: out, combine };
}
