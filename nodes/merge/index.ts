import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `merge`: runs once every branch leading to it has settled (the engine
 * waits for all parents; a branch not taken does not hold it up). Its output combines the
 * outputs of the branches that reached it: an object keyed by step id, or an array.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'merge',
  version: 1,
  category: 'logic',
  title: 'Merge',
  description: 'Waits for every required branch, then combines their outputs (object keyed by step id, or array).',
  config_schema: {
    type: 'object',
    properties: { mode: { type: 'string', enum: ['object', 'array'], default: 'object' } },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
};

export default defineNodeType(nodeType, (params: { config: { mode?: string }; inputs?: Record<string, unknown> }) => {
  const inputs = params.inputs ?? {};
  return { output: params.config.mode === 'array' ? Object.values(inputs) : inputs };
});
