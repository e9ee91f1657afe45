import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, itemsOf, ITEMS_SCHEMA, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { checkOperands, COMBINE_SCHEMA, compileConditions, ITEM_CONDITIONS_SCHEMA, OPERANDS_SCHEMA, type Condition } from '../../kernel/nodes/item-conditions.ts';
import { routeItems } from '../../kernel/nodes/item-routing.ts';

/**
 * Workflow node type `filter`: splits a list into the items meeting the conditions (`kept`) and
 * the others (`discarded`). With `branches`, each side's targets are followed only when that
 * side has items, and receive that side's items as their input (kernel/nodes/item-routing.ts).
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
      conditions: ITEM_CONDITIONS_SCHEMA,
      combine: COMBINE_SCHEMA,
      operands: OPERANDS_SCHEMA,
      branches: {
        type: ['object', 'null'],
        default: null,
        properties: { kept: target, discarded: target },
        additionalProperties: false,
        description: 'Step ids followed when that side has at least one item (each also in next). null: every next step follows.',
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

type Config = { items?: unknown; conditions: Condition[]; combine?: 'and' | 'or'; operands?: unknown; branches?: { kept?: string | string[]; discarded?: string | string[] } | null };

export default defineDataNodeType<Config>(nodeType, async ({ config, input }, budget) => {
  const items = itemsOf(config.items, input);
  const test = compileConditions(config.conditions, config.combine ?? 'and', 'config.conditions', checkOperands(config.operands, items));
  const routed = await routeItems(items, ['kept', 'discarded'], (item, i) => (test(item, i) ? 'kept' : 'discarded'), config.branches ?? {}, () => budget.tick());
  const { kept, discarded } = routed.output;
  const output = { kept, discarded, kept_count: kept.length, discarded_count: discarded.length };
  if (!config.branches) return { output, origins: routed.origins };
  return { output, next: routed.next, route: routed.route, origins: routed.origins };
});
