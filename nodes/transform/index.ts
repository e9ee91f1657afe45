import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `transform`: config `set` is an object whose values are templates; the
 * engine resolves them against committed data, and the resolved object is the output.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'transform',
  version: 1,
  category: 'data',
  title: 'Transform',
  description: 'Output = config.set with every template resolved ({{stepId.output.path}}, {{varName}}, {{trigger}}).',
  config_schema: {
    type: 'object',
    properties: { set: { type: 'object' } },
    required: ['set'],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
};

export default defineNodeType(nodeType, (params: { config: { set: Record<string, unknown> } }) => {
  return { output: params.config.set };
});
