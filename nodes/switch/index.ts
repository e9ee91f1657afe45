import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { interruptibleNodeService } from '../../kernel/nodes/interruptible.ts';
import { sameValue } from '../../kernel/nodes/values.ts';
import { budgetOf, itemsOf, type StepBudget } from '../../kernel/nodes/data-node.ts';
import { valueAt } from '../../kernel/nodes/item-path.ts';
import { checkOperands, COMBINE_SCHEMA, compileConditions, ITEM_CONDITIONS_SCHEMA, OPERANDS_SCHEMA, type Condition } from '../../kernel/nodes/item-conditions.ts';
import { routeItems, type Targets } from '../../kernel/nodes/item-routing.ts';

/**
 * Workflow node type `switch`: follows the `next` of the first case whose `equals` matches
 * `value` (compared as JSON; a number and its string form match), else `default`. Every
 * target is also in the step's `next`.
 *
 * Item mode (`items`): each item goes to the first case it matches (`equals` against the item's
 * `field`, or the case's own `conditions` on the item, which may read `operands` computed per
 * item), or with `all_matching` to every case it matches, else to `default`; the output is
 * `{case_0: [...], case_1: [...], ..., default: [...]}`, a case's targets receive its items as
 * their input, and a case without items is not taken. A long item mode stops at
 * `config.timeout` (STEP_TIMEOUT) and at a cancel of its run (STEP_INTERRUPTED).
 */
const target = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] };
const nodeType: NodeTypeDeclaration = {
  type: 'switch',
  version: 1,
  category: 'logic',
  title: 'Switch',
  description: 'Follows the branch of the first case equal to value, else default; in item mode routes each item of a list.',
  config_schema: {
    type: 'object',
    properties: {
      value: { description: 'What the cases are compared with, usually a template (not in item mode).', examples: ['{{trigger.body.kind}}'] },
      items: { type: 'array', description: 'Item mode: the list whose items are routed, usually a template.', examples: ['{{fetch.output.items}}'] },
      field: { type: 'string', maxLength: 500, default: '', description: "Item mode: the path in each item the cases' equals are compared with ('' is the item itself).", examples: ['status'] },
      cases: {
        type: 'array',
        minItems: 1,
        maxItems: 100,
        description: 'Tried in order; the first match wins.',
        examples: [[{ equals: 'open', next: 'triage' }]],
        items: {
          type: 'object',
          properties: { equals: {}, conditions: ITEM_CONDITIONS_SCHEMA, combine: COMBINE_SCHEMA, next: target },
          required: ['next'],
          additionalProperties: false,
        },
      },
      default: { oneOf: [...target.oneOf, { type: 'null' }], default: null, description: 'Followed when no case matches (null: nothing is).', examples: ['other'] },
      operands: { ...OPERANDS_SCHEMA, description: `Item mode: ${OPERANDS_SCHEMA.description}` },
      all_matching: { type: 'boolean', default: false, description: 'Item mode: each item goes to every case it matches (false: the first only); default still takes the items no case matches.', examples: [true] },
    },
    required: ['cases'],
    if: { required: ['items'] },
    then: {},
    else: { required: ['value'] },
    additionalProperties: false,
  },
  outputs: ['case', 'default'],
  branch_targets: ['cases.*.next', 'default'],
  uncertain_effect: false,
  side_effect: 'none',
};

type Case = { equals?: unknown; conditions?: Condition[]; combine?: 'and' | 'or'; next: string | string[] };
type Config = { value?: unknown; items?: unknown; field?: string; cases: Case[]; default?: string | string[] | null; operands?: unknown; all_matching?: boolean };

async function itemMode(config: Config, budget: StepBudget) {
  const items = itemsOf(config.items, null);
  const operands = checkOperands(config.operands, items);
  const tests = config.cases.map((c, i) =>
    c.conditions ? compileConditions(c.conditions, c.combine ?? 'and', `config.cases.${i}.conditions`, operands) : (item: unknown) => sameValue(valueAt(item, config.field ?? ''), c.equals),
  );
  const keys = [...config.cases.map((_, i) => `case_${i}`), 'default'];
  const targets: Record<string, Targets> = Object.fromEntries(config.cases.map((c, i) => [`case_${i}`, c.next]));
  targets.default = config.default ?? undefined;
  const branchOf = (item: unknown, i: number): string | string[] => {
    if (config.all_matching) {
      const matched = tests.flatMap((test, c) => (test(item, i) ? [`case_${c}`] : []));
      return matched.length ? matched : 'default';
    }
    const index = tests.findIndex((test) => test(item, i));
    return index >= 0 ? `case_${index}` : 'default';
  };
  const routed = await routeItems(items, keys, branchOf, targets, () => budget.tick());
  return { output: routed.output, next: routed.next, route: routed.route, origins: routed.origins };
}

export default interruptibleNodeService<{ config: Config; context?: { run_id?: string } }>(nodeType, (params) => params.context?.run_id ?? '', async (ctx, signal) => {
  const { config } = ctx.params;
  if (config.items !== undefined) return itemMode(config, budgetOf(signal, config));
  const index = config.cases.findIndex((c) => sameValue(config.value, c.equals));
  if (index >= 0) return { output: { matched: index, value: config.value }, next: [config.cases[index].next].flat() };
  return { output: { matched: 'default', value: config.value }, next: config.default === undefined || config.default === null ? [] : [config.default].flat() };
});
