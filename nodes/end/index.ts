import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/** Workflow node type `end`: finishes the run as completed; its `output` (else its input) is the run's output. */
const nodeType: NodeTypeDeclaration = {
  type: 'end',
  version: 1,
  category: 'logic',
  title: 'End',
  description: 'Finishes the run as completed, with config.output (else the input) as the run output.',
  config_schema: {
    type: 'object',
    properties: { output: { default: null, description: "The run's output (templates allowed); null: the step's input.", examples: [{ total: '{{sum.output.total}}' }] } },
    additionalProperties: false,
  },
  outputs: [],
  uncertain_effect: false,
  side_effect: 'none',
};

export default defineNodeType(nodeType, (params: { config: { output?: unknown }; input?: unknown }) => {
  const output = params.config.output ?? params.input ?? null;
  return { output, finish: { status: 'completed', output } };
});
