import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { budgetOf } from '../../kernel/nodes/data-node.ts';
import { interruptibleNodeService } from '../../kernel/nodes/interruptible.ts';
import { FIELD_PATH_SCHEMA } from '../../kernel/nodes/item-path.ts';
import { JOINS, LIST_MODES, mergeLists, type ListsConfig } from './lists.ts';

/**
 * Workflow node type `merge`: runs once every branch leading to it has settled (the engine
 * waits for all parents; a branch not taken does not hold it up). Its output combines the
 * outputs of the branches that reached it: an object keyed by step id, or an array. The item
 * modes (lists.ts) combine the lists named in `lists` instead, into one list of items; a long
 * one stops at `config.timeout` (STEP_TIMEOUT) and at a cancel of its run (STEP_INTERRUPTED).
 */
const nodeType: NodeTypeDeclaration = {
  type: 'merge',
  version: 1,
  category: 'logic',
  title: 'Merge',
  description: 'Waits for every required branch, then combines their outputs (object keyed by step id, or array).',
  config_schema: {
    type: 'object',
    properties: {
      mode: {
        type: 'string',
        enum: ['object', 'array', ...LIST_MODES],
        default: 'object',
        description: 'object / array: the branches\' outputs by step id or in a list; item modes over lists: append, by_position (every list), by_fields (matching fields), all_pairs, choose (one list).',
        examples: ['append'],
      },
      lists: { type: 'array', maxItems: 10, description: 'Item modes: the lists combined, in order (input 1, input 2), usually templates.', examples: [['{{a.output}}', '{{b.output.items}}']] },
      fields: {
        type: 'array', maxItems: 10, default: [], description: 'by_fields: the fields that must be equal (left in the first list, right in the second; none: every pair matches).', examples: [[{ left: 'id', right: 'user_id' }]],
        items: { type: 'object', properties: { left: FIELD_PATH_SCHEMA, right: FIELD_PATH_SCHEMA }, required: ['left', 'right'], additionalProperties: false },
      },
      join: {
        type: 'string', enum: [...JOINS], default: 'inner',
        description: "by_fields: inner (matched pairs), left (also the first list's unmatched items, after the pairs), right (also the second's; the first list's keys win), outer (both lists' unmatched items after the pairs), anti (only unmatched items: output_from picks whose).",
        examples: ['left'],
      },
      output_from: { type: 'string', enum: ['both', 'first', 'second'], default: 'both', description: "by_fields, inner: merged pairs (both), or the matched items of one list as they are; anti: both lists' unmatched items, or one's.", examples: ['first'] },
      multiple: { type: 'string', enum: ['all', 'first'], default: 'all', description: 'by_fields: an item pairs with every matching item of the second list, or with the first one only.', examples: ['first'] },
      prefer: { type: ['string', 'null'], enum: ['first', 'second', null], default: null, description: "by_fields: whose keys win where paired items share one (null: the second list's; for join right the first's).", examples: ['first'] },
      source_key: { type: ['string', 'null'], minLength: 1, maxLength: 100, default: null, description: "by_fields, anti with output_from both (and both lists holding items): the key set on each item to 'input1' or 'input2' (null: none).", examples: ['_source'] },
      include_unpaired: { type: 'boolean', default: false, description: 'by_position: as many items as the longest list (a missing item adds nothing), not the shortest.', examples: [true] },
      deep: { type: 'boolean', default: false, description: 'by_position, by_fields, all_pairs: combine nested objects and lists key by key and element by element (default: the later item\'s top-level keys replace the earlier\'s).', examples: [true] },
      strict: { type: 'boolean', default: false, description: 'by_fields: matching values must also be of the same type (default: 5 matches "5").', examples: [true] },
      choose: { oneOf: [{ type: 'integer', minimum: 0, maximum: 9 }, { const: 'empty' }], default: 0, description: "choose: which list is passed on (0 is the first), or 'empty': one empty item.", examples: [1] },
    },
    additionalProperties: false,
    if: { properties: { mode: { enum: [...LIST_MODES] } }, required: ['mode'] },
    then: { required: ['lists'] },
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
};

type Params = { config: { mode?: string; timeout?: unknown }; inputs?: Record<string, unknown>; context?: { run_id?: string } };

export default interruptibleNodeService<Params>(nodeType, (params) => params.context?.run_id ?? '', async (ctx, signal) => {
  const { config } = ctx.params;
  if ((LIST_MODES as readonly string[]).includes(config.mode ?? '')) {
    const budget = budgetOf(signal, config);
    return { output: await mergeLists(config as unknown as ListsConfig, () => budget.tick()) };
  }
  const inputs = ctx.params.inputs ?? {};
  return { output: config.mode === 'array' ? Object.values(inputs) : inputs };
});
