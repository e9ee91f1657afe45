import { decide, OPERATORS } from './decide.ts';
import { FIELD_PATH_SCHEMA, valueAt } from './item-path.ts';
import { linearRegex, matchesLinear } from './linear-regex.ts';

export const PATTERN_OPERATORS = ['matches', 'not_matches'] as const;
/** the negations of other operators (an item meets `not_x` when it does not meet `x`) */
export const NEGATED_OPERATORS = ['not_contains', 'not_starts_with', 'not_ends_with', 'not_empty', 'not_exists'] as const;

/** config_schema of a list of conditions on an item's fields (filter, and condition / switch in item mode). */
export const ITEM_CONDITIONS_SCHEMA = {
  type: 'array',
  minItems: 1,
  maxItems: 50,
  description: 'Each compares a field of the item with `value` by `operator`. Patterns (matches, not_matches) run on a linear-time engine: no backreferences, lookaround or case-insensitive flag.',
  examples: [[{ field: 'status', operator: 'eq', value: 'open' }, { field: 'email', operator: 'matches', value: '@example\\.com$' }]],
  items: {
    type: 'object',
    properties: {
      field: FIELD_PATH_SCHEMA,
      operator: { type: 'string', enum: [...OPERATORS, ...PATTERN_OPERATORS, 'starts_with', 'ends_with', ...NEGATED_OPERATORS], default: 'truthy', description: 'How the field is compared with value.' },
      value: { description: 'What the field is compared with (a pattern for matches / not_matches).' },
    },
    required: ['field'],
    additionalProperties: false,
  },
};

/** config_schema of how several conditions combine. */
export const COMBINE_SCHEMA = { type: 'string', enum: ['and', 'or'], default: 'and', description: 'Whether an item must meet every condition (and) or one (or).', examples: ['or'] } as const;

export interface Condition {
  field: string;
  operator?: string;
  value?: unknown;
}

type Test = (item: unknown) => boolean;

function conditionTest(c: Condition, index: number, where: string): Test {
  const op = c.operator ?? 'truthy';
  if ((NEGATED_OPERATORS as readonly string[]).includes(op)) {
    const test = conditionTest({ ...c, operator: op.slice(4) }, index, where);
    return (item) => !test(item);
  }
  if (op === 'matches' || op === 'not_matches') {
    const re = linearRegex(typeof c.value === 'string' ? c.value : String(c.value ?? ''), `${where}.${index}.value`);
    const want = op === 'matches';
    return (item) => matchesLinear(re, valueAt(item, c.field)) === want;
  }
  if (op === 'starts_with') return (item) => String(valueAt(item, c.field) ?? '').startsWith(String(c.value ?? ''));
  if (op === 'ends_with') return (item) => String(valueAt(item, c.field) ?? '').endsWith(String(c.value ?? ''));
  return (item) => decide(valueAt(item, c.field), op, c.value);
}

/** One predicate for the conditions, compiled once per step (patterns included). */
export function compileConditions(conditions: Condition[], combine: 'and' | 'or', where = 'config.conditions'): Test {
  const tests = conditions.map((c, i) => conditionTest(c, i, where));
  return combine === 'or' ? (item) => tests.some((t) => t(item)) : (item) => tests.every((t) => t(item));
}
