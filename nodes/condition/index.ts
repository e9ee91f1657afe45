import { decide, OPERATORS } from '../../kernel/nodes/decide.ts';
import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `condition`: `expression` (usually a template such as
 * "{{trigger.body.amount}}"), optionally compared by `operator` with `value`; without an
 * operator the expression's truthiness decides. `branches.true` / `branches.false` name the
 * step ids followed (each also in `next`); a side without targets ends that path.
 */
const target = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] };
const nodeType: NodeTypeDeclaration = {
  type: 'condition',
  version: 1,
  category: 'logic',
  title: 'Condition',
  description: 'Follows branches.true or branches.false depending on the expression.',
  config_schema: {
    type: 'object',
    properties: {
      expression: {},
      operator: { type: 'string', enum: OPERATORS },
      value: {},
      branches: { type: 'object', properties: { true: target, false: target }, additionalProperties: false },
    },
    required: ['expression', 'branches'],
    additionalProperties: false,
  },
  outputs: ['true', 'false'],
  branch_targets: ['branches.true', 'branches.false'],
  uncertain_effect: false,
};

type Config = { expression: unknown; operator?: string; value?: unknown; branches: { true?: string | string[]; false?: string | string[] } };

export default defineNodeType(nodeType, (params: { config: Config }) => {
  const { config } = params;
  const result = decide(config.expression, config.operator, config.value);
  const chosen = config.branches[result ? 'true' : 'false'];
  return { output: { result, branch: result ? 'true' : 'false' }, next: chosen === undefined ? [] : [chosen].flat() };
});
