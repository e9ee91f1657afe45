import { compareInstants, folded, instantOf, zoneOf } from './condition-values.ts';
import { decide, OPERATORS } from './decide.ts';
import { FIELD_PATH_SCHEMA, valueAt } from './item-path.ts';
import { linearRegex, matchesLinear } from './linear-regex.ts';
import { NodeStepError } from './step-error.ts';

export const PATTERN_OPERATORS = ['matches', 'not_matches'] as const;
/** the negations of other operators (an item meets `not_x` when it does not meet `x`) */
export const NEGATED_OPERATORS = ['not_contains', 'not_starts_with', 'not_ends_with', 'not_empty', 'not_exists'] as const;
const DATETIME_OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'exists', 'not_exists', 'empty', 'not_empty'];

const OPERAND_KEY = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } as const;

/** config_schema of a list of conditions on an item's fields (filter, and condition / switch in item mode). */
export const ITEM_CONDITIONS_SCHEMA = {
  type: 'array',
  minItems: 1,
  maxItems: 50,
  description:
    "Each compares a field of the item (or its `operand`: a key of the item's element of the step's `operands`) with `value` (or `value_field` of the item, or `value_operand`) by `operator`. `ignore_case` compares text in lower case; `type: datetime` parses both sides as date-times (ISO 8601, HTTP, RFC 2822, SQL; `zone` for text without an offset) and compares the instants. Patterns (matches, not_matches) run on a linear-time engine: no backreferences, lookaround or case-insensitive flag.",
  examples: [[{ field: 'status', operator: 'eq', value: 'open' }, { field: 'email', operator: 'matches', value: '@example\\.com$' }]],
  items: {
    type: 'object',
    properties: {
      field: FIELD_PATH_SCHEMA,
      operand: { ...OPERAND_KEY, description: "Instead of field: the key of this item's element of `operands` (a value computed per item, e.g. by a code step)." },
      operator: { type: 'string', enum: [...OPERATORS, ...PATTERN_OPERATORS, 'starts_with', 'ends_with', ...NEGATED_OPERATORS], default: 'truthy', description: 'How the field is compared with value.' },
      value: { description: 'What the field is compared with (a pattern for matches / not_matches).' },
      value_field: { ...FIELD_PATH_SCHEMA, description: 'Instead of value: a path in the same item.' },
      value_operand: { ...OPERAND_KEY, description: "Instead of value: the key of this item's element of `operands`." },
      ignore_case: { type: 'boolean', default: false, description: 'Compare text in lower case (not for patterns).' },
      type: { type: 'string', enum: ['any', 'datetime'], default: 'any', description: 'datetime: both sides are parsed as date-times and compared as instants; a value that is no date-time fails the step.' },
      zone: { type: 'string', maxLength: 64, description: 'datetime: the IANA zone of text without an offset (default UTC).', examples: ['Europe/Berlin'] },
    },
    if: { required: ['operand'] },
    then: {},
    else: { required: ['field'] },
    additionalProperties: false,
  },
};

/** config_schema of the per-item values conditions read by `operand` / `value_operand`. */
export const OPERANDS_SCHEMA = {
  type: ['array', 'null'],
  default: null,
  description: "Values computed per item, one element (an object) per item in the same order, usually a template naming a code step's output; conditions read its keys by `operand` and `value_operand` (null: none).",
  examples: ['{{route_expressions.output}}'],
} as const;

/** config_schema of how several conditions combine. */
export const COMBINE_SCHEMA = { type: 'string', enum: ['and', 'or'], default: 'and', description: 'Whether an item must meet every condition (and) or one (or).', examples: ['or'] } as const;

export interface Condition {
  field?: string;
  operand?: string;
  operator?: string;
  value?: unknown;
  value_field?: string;
  value_operand?: string;
  ignore_case?: boolean;
  type?: 'any' | 'datetime';
  zone?: string;
}

/** An item, its index in the list, and its element of `operands` (if any). */
type Test = (item: unknown, index: number) => boolean;
type Side = (item: unknown, index: number) => unknown;

/** Per-item values by item index, checked against the items they belong to. */
export function checkOperands(operands: unknown, items: unknown[], where = 'config.operands'): unknown[] | undefined {
  if (operands === undefined || operands === null) return undefined;
  if (!Array.isArray(operands)) throw new NodeStepError(`${where} must be a list with one element per item, got ${typeof operands}.`, 'BAD_INPUT');
  if (operands.length !== items.length) throw new NodeStepError(`${where} has ${operands.length} elements for ${items.length} items: it needs one per item.`, 'BAD_INPUT');
  return operands;
}

function operandSide(key: string, operands: unknown[] | undefined, where: string): Side {
  if (!operands) throw new NodeStepError(`${where} reads operand '${key}', but the step has no config.operands.`, 'BAD_CONFIG');
  return (_item, index) => valueAt(operands[index], key);
}

function sides(c: Condition, where: string, operands: unknown[] | undefined): { left: Side; right: Side } {
  const left: Side = c.operand !== undefined ? operandSide(c.operand, operands, `${where}.operand`) : (item) => valueAt(item, c.field ?? '');
  let right: Side = () => c.value;
  if (c.value_operand !== undefined) right = operandSide(c.value_operand, operands, `${where}.value_operand`);
  else if (c.value_field !== undefined) right = (item) => valueAt(item, c.value_field!);
  if (!c.ignore_case) return { left, right };
  return { left: (item, i) => folded(left(item, i)), right: (item, i) => folded(right(item, i)) };
}

function conditionTest(c: Condition, index: number, where: string, operands: unknown[] | undefined): Test {
  const op = c.operator ?? 'truthy';
  const at = `${where}.${index}`;
  if ((NEGATED_OPERATORS as readonly string[]).includes(op)) {
    const test = conditionTest({ ...c, operator: op.slice(4) }, index, where, operands);
    return (item, i) => !test(item, i);
  }
  const { left, right } = sides(c, at, operands);
  if (c.type === 'datetime') {
    if (!DATETIME_OPERATORS.includes(op)) throw new NodeStepError(`${at}.operator '${op}' does not compare date-times (eq, ne, gt, gte, lt, lte, exists, empty).`, 'BAD_CONFIG');
    const zone = zoneOf(c.zone, `${at}.zone`);
    if (op === 'exists' || op === 'empty') return (item, i) => decide(left(item, i), op, undefined);
    return (item, i) => compareInstants(instantOf(left(item, i), zone, `${at} (left)`), op, instantOf(right(item, i), zone, `${at} (right)`));
  }
  if (op === 'matches' || op === 'not_matches') {
    if (c.ignore_case) throw new NodeStepError(`${at}.ignore_case does not apply to patterns: the linear-time engine has no case-insensitive matching.`, 'BAD_PATTERN');
    if (c.value_operand !== undefined || c.value_field !== undefined) throw new NodeStepError(`${at}: a pattern is a fixed value, not read from the item.`, 'BAD_CONFIG');
    const re = linearRegex(typeof c.value === 'string' ? c.value : String(c.value ?? ''), `${at}.value`);
    const want = op === 'matches';
    return (item, i) => matchesLinear(re, left(item, i)) === want;
  }
  if (op === 'starts_with') return (item, i) => String(left(item, i) ?? '').startsWith(String(right(item, i) ?? ''));
  if (op === 'ends_with') return (item, i) => String(left(item, i) ?? '').endsWith(String(right(item, i) ?? ''));
  return (item, i) => decide(left(item, i), op, right(item, i));
}

/** One predicate for the conditions, compiled once per step (patterns included); `operands` as checkOperands gave them. */
export function compileConditions(conditions: Condition[], combine: 'and' | 'or', where = 'config.conditions', operands?: unknown[]): Test {
  const tests = conditions.map((c, i) => conditionTest(c, i, where, operands));
  return combine === 'or' ? (item, i) => tests.some((t) => t(item, i)) : (item, i) => tests.every((t) => t(item, i));
}
