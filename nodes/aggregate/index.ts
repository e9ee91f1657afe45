import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, itemsOf, ITEMS_SCHEMA, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { FIELD_PATH_SCHEMA } from '../../kernel/nodes/item-path.ts';
import { aggregate, AGGREGATE_OPS, type Aggregation } from './groups.ts';

/**
 * Workflow node type `aggregate`: groups a list by fields and computes, per group, sum, count,
 * min, max, collect or concat (collect, lists joined into one) of a field. Without group_by the whole list is one group.
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'aggregate',
  version: 1,
  category: 'data',
  title: 'Aggregate',
  description: 'Groups a list by fields and computes sum, count, min, max, collect and concat per group.',
  config_schema: {
    type: 'object',
    properties: {
      items: ITEMS_SCHEMA,
      group_by: { type: 'array', maxItems: 10, items: FIELD_PATH_SCHEMA, default: [], description: 'Fields whose values make a group (none: one group of every item). Groups come in order of first appearance.', examples: [['customer.country']] },
      aggregations: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        description: 'What each group gets: sum and min/max of numbers (non-numbers are ignored; min/max compare strings when no number is found), count of items (with a field: of items where it is present), collect of the values, concat of the values with each list value\'s elements added one by one (lists merged into one).',
        examples: [[{ op: 'sum', field: 'amount', as: 'total' }, { op: 'count', as: 'orders' }, { op: 'collect', field: 'id', as: 'ids' }]],
        items: {
          type: 'object',
          properties: {
            op: { type: 'string', enum: [...AGGREGATE_OPS], description: 'sum, count, min, max, collect or concat.' },
            field: { ...FIELD_PATH_SCHEMA, description: 'The field it reads (count without one counts items).' },
            as: { type: 'string', minLength: 1, maxLength: 100, description: 'The key of the result in each group (default: <op>_<field>).' },
          },
          required: ['op'],
          additionalProperties: false,
        },
      },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    required: ['aggregations'],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
  failures: COMMON_STEP_FAILURES,
};

type Config = { items?: unknown; group_by?: string[]; aggregations: Aggregation[] };

export default defineDataNodeType<Config>(nodeType, async ({ config, input }, budget) => {
  const items = itemsOf(config.items, input);
  const groups = await aggregate(items, config.group_by ?? [], config.aggregations, budget);
  return { output: { groups, count: groups.length } };
});
