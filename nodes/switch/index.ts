import { NODE_EXECUTE_PARAMS } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `switch`: follows the `next` of the first case whose `equals` matches
 * `value` (compared as JSON; a number and its string form match), else `default`. Every
 * target is also in the step's `next`.
 */
const target = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] };
const nodeType = {
  type: 'switch',
  version: 1,
  category: 'logic',
  title: 'Switch',
  description: 'Follows the branch of the first case equal to value, else default.',
  config_schema: {
    type: 'object',
    properties: {
      value: {},
      cases: {
        type: 'array',
        minItems: 1,
        maxItems: 100,
        items: { type: 'object', properties: { equals: {}, next: target }, required: ['equals', 'next'], additionalProperties: false },
      },
      default: target,
    },
    required: ['value', 'cases'],
    additionalProperties: false,
  },
  outputs: ['case', 'default'],
  branch_targets: ['cases.*.next', 'default'],
  uncertain_effect: false,
};

type Config = { value: unknown; cases: { equals: unknown; next: string | string[] }[]; default?: string | string[] };

function matches(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b || (a !== null && b !== null && String(a) === String(b));
}

export default {
  name: 'node.switch',
  metadata: { nodeType },
  actions: {
    execute: {
      visibility: 'public',
      params: NODE_EXECUTE_PARAMS,
      handler(ctx: { params: { config: Config } }) {
        const { config } = ctx.params;
        const index = config.cases.findIndex((c) => matches(config.value, c.equals));
        if (index >= 0) return { output: { matched: index, value: config.value }, next: [config.cases[index].next].flat() };
        return { output: { matched: 'default', value: config.value }, next: config.default === undefined ? [] : [config.default].flat() };
      },
    },
  },
};
