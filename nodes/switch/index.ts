import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { sameValue } from '../../kernel/nodes/values.ts';

/**
 * Workflow node type `switch`: follows the `next` of the first case whose `equals` matches
 * `value` (compared as JSON; a number and its string form match), else `default`. Every
 * target is also in the step's `next`.
 */
const target = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] };
const nodeType: NodeTypeDeclaration = {
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

export default defineNodeType(nodeType, (params: { config: Config }) => {
  const { config } = params;
  const index = config.cases.findIndex((c) => sameValue(config.value, c.equals));
  if (index >= 0) return { output: { matched: index, value: config.value }, next: [config.cases[index].next].flat() };
  return { output: { matched: 'default', value: config.value }, next: config.default === undefined ? [] : [config.default].flat() };
});
