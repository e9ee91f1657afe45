import { OPERATORS } from '../../kernel/nodes/decide.ts';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, itemsOf, ITEMS_SCHEMA, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { FIELD_PATH_SCHEMA } from '../../kernel/nodes/item-path.ts';
import { compileConditions, PATTERN_OPERATORS, type Condition } from './conditions.ts';

/**
 * Workflow node type `filter`: splits a list into the items meeting the conditions (`kept`) and
 * the others (`discarded`). With `branches`, each side's targets are followed only when that
 * side has items.
 */
const target = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] };
export const nodeType: NodeTypeDeclaration = {
  type: 'filter',
  version: 1,
  category: 'data',
  title: 'Filter',
  description: 'Keeps the items meeting the conditions (kept) and sets the others aside (discarded).',
  config_schema: {
    type: 'object',
    properties: {
      items: ITEMS_SCHEMA,
      conditions: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        description: 'Each compares a field of the item with `value` by `operator`. Patterns (matches, not_matches) run on a linear-time engine: no backreferences, lookaround or case-insensitive flag.',
        examples: [[{ field: 'status', operator: 'eq', value: 'open' }, { field: 'email', operator: 'matches', value: '@example\\.com$' }]],
        items: {
          type: 'object',
          properties: {
            field: FIELD_PATH_SCHEMA,
            operator: { type: 'string', enum: [...OPERATORS, ...PATTERN_OPERATORS, 'starts_with', 'ends_with'], default: 'truthy', description: 'How the field is compared with value.' },
            value: { description: 'What the field is compared with (a pattern for matches / not_matches).' },
          },
          required: ['field'],
          additionalProperties: false,
        },
      },
      combine: { type: 'string', enum: ['and', 'or'], default: 'and', description: 'Whether an item must meet every condition (and) or one (or).', examples: ['or'] },
      branches: {
        type: 'object',
        properties: { kept: target, discarded: target },
        additionalProperties: false,
        description: 'Step ids followed when that side has at least one item (each also in next). Without branches, every next step follows.',
        examples: [{ kept: 'notify', discarded: 'archive' }],
      },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    required: ['conditions'],
    additionalProperties: false,
  },
  outputs: ['kept', 'discarded'],
  branch_targets: ['branches.kept', 'branches.discarded'],
  uncertain_effect: false,
  side_effect: 'none',
  failures: { ...COMMON_STEP_FAILURES, BAD_PATTERN: 'a matches / not_matches pattern that is not a regular expression the linear-time engine runs' },
};

type Config = { items?: unknown; conditions: Condition[]; combine?: 'and' | 'or'; branches?: { kept?: string | string[]; discarded?: string | string[] } };

export default defineDataNodeType<Config>(nodeType, async ({ config, input }, budget) => {
  const items = itemsOf(config.items, input);
  const test = compileConditions(config.conditions, config.combine ?? 'and');
  const kept: unknown[] = [];
  const discarded: unknown[] = [];
  for (const item of items) {
    (test(item) ? kept : discarded).push(item);
    await budget.tick();
  }
  const output = { kept, discarded, kept_count: kept.length, discarded_count: discarded.length };
  if (!config.branches) return { output };
  const next = [kept.length ? config.branches.kept : undefined, discarded.length ? config.branches.discarded : undefined].flat().filter((t): t is string => typeof t === 'string');
  return { output, next };
});
