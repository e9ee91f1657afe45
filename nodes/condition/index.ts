import { decide, OPERATORS } from '../../kernel/nodes/decide.ts';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { budgetOf, itemsOf, type StepBudget } from '../../kernel/nodes/data-node.ts';
import { interruptibleNodeService } from '../../kernel/nodes/interruptible.ts';
import { checkOperands, COMBINE_SCHEMA, compileConditions, ITEM_CONDITIONS_SCHEMA, OPERANDS_SCHEMA, type Condition } from '../../kernel/nodes/item-conditions.ts';
import { routeItems } from '../../kernel/nodes/item-routing.ts';

/**
 * Workflow node type `condition`: `expression` (usually a template such as
 * "{{trigger.body.amount}}"), optionally compared by `operator` with `value`; without an
 * operator the expression's truthiness decides. `branches.true` / `branches.false` name the
 * step ids followed (each also in `next`); a side without targets ends that path.
 *
 * Item mode (`items` and `conditions`, as the filter's; `operands` per item for conditions
 * reading computed values): each item goes to the side it meets;
 * the output is `{true: [...], false: [...]}`, a side's targets receive its items as their input,
 * and a side without items is not taken. A long item mode stops at `config.timeout`
 * (STEP_TIMEOUT) and at a cancel of its run (STEP_INTERRUPTED).
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
      expression: { description: 'What is tested, usually a template such as "{{trigger.body.amount}}" (not in item mode).', examples: ['{{trigger.body.amount}}'] },
      operator: { type: 'string', enum: OPERATORS, default: 'truthy', description: 'How the expression is compared with value (truthy and falsy test the expression alone).', examples: ['gt'] },
      value: { default: null, description: 'What the expression is compared with (not read by truthy, falsy, exists and empty).', examples: [100] },
      items: { type: 'array', description: 'Item mode: the list whose items are routed, usually a template such as "{{fetch.output.items}}".', examples: ['{{fetch.output.items}}'] },
      conditions: { ...ITEM_CONDITIONS_SCHEMA, description: `Item mode: ${ITEM_CONDITIONS_SCHEMA.description}` },
      combine: COMBINE_SCHEMA,
      operands: { ...OPERANDS_SCHEMA, description: `Item mode: ${OPERANDS_SCHEMA.description}` },
      branches: { type: 'object', properties: { true: target, false: target }, additionalProperties: false, description: 'Step ids followed on each side (each also in next).', examples: [{ true: 'notify', false: 'archive' }] },
    },
    required: ['branches'],
    if: { required: ['items'] },
    then: { required: ['conditions'] },
    else: { required: ['expression'] },
    additionalProperties: false,
  },
  outputs: ['true', 'false'],
  branch_targets: ['branches.true', 'branches.false'],
  uncertain_effect: false,
  side_effect: 'none',
};

type Config = {
  timeout?: unknown;
  expression?: unknown; operator?: string; value?: unknown; items?: unknown; conditions?: Condition[]; combine?: 'and' | 'or'; operands?: unknown;
  branches: { true?: string | string[]; false?: string | string[] };
};

async function itemMode(config: Config, budget: StepBudget) {
  const items = itemsOf(config.items, null);
  const test = compileConditions(config.conditions ?? [], config.combine ?? 'and', 'config.conditions', checkOperands(config.operands, items));
  const routed = await routeItems(items, ['true', 'false'], (item, i) => (test(item, i) ? 'true' : 'false'), config.branches, () => budget.tick());
  return { output: routed.output, next: routed.next, route: routed.route, origins: routed.origins };
}

export default interruptibleNodeService<{ config: Config; context?: { run_id?: string } }>(nodeType, (params) => params.context?.run_id ?? '', async (ctx, signal) => {
  const { config } = ctx.params;
  if (config.items !== undefined) return itemMode(config, budgetOf(signal, config));
  const result = decide(config.expression, config.operator, config.value);
  const chosen = config.branches[result ? 'true' : 'false'];
  return { output: { result, branch: result ? 'true' : 'false' }, next: chosen === undefined ? [] : [chosen].flat() };
});
