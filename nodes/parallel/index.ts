import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `parallel`: an explicit fan-out. Every step in `next` starts once this
 * step's receipt commits, and sibling branches run concurrently. Its output is its input.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'parallel',
  version: 1,
  category: 'logic',
  title: 'Parallel',
  description: 'Fans out: every step in next runs, concurrently. Output = input.',
  config_schema: {
    type: 'object',
    properties: { description: { type: 'string', maxLength: 2000, default: '', description: 'What this step is for, for the people reading the workflow.', examples: ['Enrich the lead from CRM and web at once.'] } },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
};

export default defineNodeType(nodeType, (params: { input?: unknown }) => {
  return { output: params.input ?? null };
});
