import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { COMMON_STEP_FAILURES, defineDataNodeType, itemsOf, ITEMS_SCHEMA, MAX_ITEMS, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';

/** Workflow node type `limit`: the first `max` items of a list (or the last, `from: end`). */
export const nodeType: NodeTypeDeclaration = {
  type: 'limit',
  version: 1,
  category: 'data',
  title: 'Limit',
  description: 'Keeps at most max items of a list, from its start or its end.',
  config_schema: {
    type: 'object',
    properties: {
      items: ITEMS_SCHEMA,
      max: { type: 'integer', minimum: 0, maximum: MAX_ITEMS, default: 10, description: 'How many items to keep.', examples: [5] },
      from: { type: 'string', enum: ['start', 'end'], default: 'start', description: 'Keep the first items (start) or the last (end).', examples: ['end'] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
  failures: COMMON_STEP_FAILURES,
};

type Config = { items?: unknown; max?: number; from?: 'start' | 'end' };

export default defineDataNodeType<Config>(nodeType, ({ config, input }) => {
  const items = itemsOf(config.items, input);
  const max = config.max ?? 10;
  const kept = config.from === 'end' ? items.slice(Math.max(0, items.length - max)) : items.slice(0, max);
  return { output: { items: kept, count: kept.length, dropped: items.length - kept.length } };
});
