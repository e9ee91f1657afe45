import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `trigger`: the entry node of a manual, scheduled or event-started run.
 * Its output is the trigger payload (for a manual run, the run body's `input`).
 */
const nodeType: NodeTypeDeclaration = {
  type: 'trigger',
  version: 1,
  category: 'entry',
  title: 'Trigger',
  description: 'Entry node: its output is the trigger payload ({{trigger}}).',
  entry: true,
  config_schema: {
    type: 'object',
    properties: { description: { type: 'string', maxLength: 2000, default: '', description: 'What this step is for, for the people reading the workflow.', examples: ['Started by the nightly schedule or by hand.'] } },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
};

export default defineNodeType(nodeType, (params: { input?: unknown }) => {
  return { output: params.input ?? null };
});
