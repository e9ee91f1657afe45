import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, itemsOf, ITEMS_SCHEMA, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { FIELD_PATH_SCHEMA } from '../../kernel/nodes/item-path.ts';
import { shuffled, SORT_TYPES, sortItems, type SortKey } from './compare.ts';

/**
 * Workflow node type `sort`: orders a list by several keys, each typed (number, string, date,
 * or auto) and ascending or descending. Stable: items equal on every key keep their order.
 * Missing values (undefined, null, unparsable for the key's type) go last in both orders.
 * With shuffle, the list comes out in a random order instead (every order equally likely).
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'sort',
  version: 1,
  category: 'data',
  title: 'Sort',
  description: 'Orders a list by one or more typed keys (stable, missing values last), or shuffles it.',
  config_schema: {
    type: 'object',
    properties: {
      items: ITEMS_SCHEMA,
      keys: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        description: 'Sort keys, the first deciding first.',
        examples: [[{ field: 'priority', type: 'number', order: 'desc' }, { field: 'created_at', type: 'date' }]],
        items: {
          type: 'object',
          properties: {
            field: FIELD_PATH_SCHEMA,
            order: { type: 'string', enum: ['asc', 'desc'], default: 'asc', description: 'Ascending or descending.' },
            type: { type: 'string', enum: [...SORT_TYPES], default: 'auto', description: 'number, string (locale-aware, numeric-aware), date (ISO 8601 or epoch ms), or auto (numbers before strings, each by its kind).' },
          },
          required: ['field'],
          additionalProperties: false,
        },
      },
      shuffle: { type: 'boolean', default: false, description: 'A random order instead of keys (every order equally likely); keys are then not needed and not read.', examples: [true] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    additionalProperties: false,
    if: { properties: { shuffle: { const: true } }, required: ['shuffle'] },
    else: { required: ['keys'] },
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
  failures: COMMON_STEP_FAILURES,
};

type Config = { items?: unknown; keys?: SortKey[]; shuffle?: boolean };

export default defineDataNodeType<Config>(nodeType, async ({ config, input }, budget) => {
  const items = itemsOf(config.items, input);
  const sorted = config.shuffle === true ? shuffled(items) : await sortItems(items, config.keys ?? [], () => budget.tick());
  // the sort itself cannot be cut short: yield once so that a cancel sent meanwhile is seen
  await budget.tick(1);
  return { output: { items: sorted, count: sorted.length } };
});
