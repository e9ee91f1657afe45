import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { FIELD_PATH_SCHEMA } from '../../kernel/nodes/item-path.ts';
import { LIST_MODES, mergeLists, type ListsConfig } from './lists.ts';

/**
 * Workflow node type `merge`: runs once every branch leading to it has settled (the engine
 * waits for all parents; a branch not taken does not hold it up). Its output combines the
 * outputs of the branches that reached it: an object keyed by step id, or an array. The item
 * modes (lists.ts) combine the lists named in `lists` instead, into one list of items.
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
        description: 'object / array: the branches\' outputs by step id or in a list; item modes over lists: append, by_position, by_fields (matching fields), all_pairs, choose (one list).',
        examples: ['append'],
      },
      lists: { type: 'array', maxItems: 10, description: 'Item modes: the lists combined, in order (input 1, input 2), usually templates.', examples: [['{{a.output}}', '{{b.output.items}}']] },
      fields: {
        type: 'array', maxItems: 10, description: 'by_fields: the fields that must be equal (left in the first list, right in the second).', examples: [[{ left: 'id', right: 'user_id' }]],
        items: { type: 'object', properties: { left: FIELD_PATH_SCHEMA, right: FIELD_PATH_SCHEMA }, required: ['left', 'right'], additionalProperties: false },
      },
      join: { type: 'string', enum: ['inner', 'left'], default: 'inner', description: 'by_fields: keep only matched items (inner) or also the first list\'s unmatched ones (left).', examples: ['left'] },
      choose: { type: 'integer', minimum: 0, maximum: 9, default: 0, description: 'choose: which list is passed on (0 is the first).', examples: [1] },
    },
    additionalProperties: false,
    if: { properties: { mode: { enum: [...LIST_MODES] } }, required: ['mode'] },
    then: { required: ['lists'] },
  },
  outputs: ['main'],
  uncertain_effect: false,
};

export default defineNodeType(nodeType, (params: { config: { mode?: string }; inputs?: Record<string, unknown> }) => {
  if ((LIST_MODES as readonly string[]).includes(params.config.mode ?? '')) return { output: mergeLists(params.config as ListsConfig) };
  const inputs = params.inputs ?? {};
  return { output: params.config.mode === 'array' ? Object.values(inputs) : inputs };
});
