import { decide } from '../../kernel/nodes/decide.ts';
import { valueAt } from '../../kernel/nodes/item-path.ts';
import { linearRegex, matchesLinear } from '../../kernel/nodes/linear-regex.ts';

export const PATTERN_OPERATORS = ['matches', 'not_matches'] as const;

export interface Condition {
  field: string;
  operator?: string;
  value?: unknown;
}

type Test = (item: unknown) => boolean;

function conditionTest(c: Condition, index: number): Test {
  const op = c.operator ?? 'truthy';
  if (op === 'matches' || op === 'not_matches') {
    const re = linearRegex(typeof c.value === 'string' ? c.value : String(c.value ?? ''), `config.conditions.${index}.value`);
    const want = op === 'matches';
    return (item) => matchesLinear(re, valueAt(item, c.field)) === want;
  }
  if (op === 'starts_with') return (item) => String(valueAt(item, c.field) ?? '').startsWith(String(c.value ?? ''));
  if (op === 'ends_with') return (item) => String(valueAt(item, c.field) ?? '').endsWith(String(c.value ?? ''));
  return (item) => decide(valueAt(item, c.field), op, c.value);
}

/** One predicate for the conditions, compiled once per step (patterns included). */
export function compileConditions(conditions: Condition[], combine: 'and' | 'or'): Test {
  const tests = conditions.map(conditionTest);
  return combine === 'or' ? (item) => tests.some((t) => t(item)) : (item) => tests.every((t) => t(item));
}
