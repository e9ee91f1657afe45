import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/** Workflow node type `note`: an annotation; the engine never executes it (`skip_at_runtime`). */
const nodeType: NodeTypeDeclaration = {
  type: 'note',
  version: 1,
  category: 'annotation',
  title: 'Note',
  description: 'A note on the canvas; skipped at runtime.',
  skip_at_runtime: true,
  config_schema: {
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 20000, default: '', description: 'The note shown on the canvas.', examples: ['Retries here are handled by the HTTP step.'] },
      color: { type: 'string', maxLength: 32, default: '', description: "The note's colour, a CSS colour (empty: the editor's).", examples: ['#fff3bf'] },
    },
    additionalProperties: false,
  },
  outputs: [],
  uncertain_effect: false,
  side_effect: 'none',
};

export default defineNodeType(nodeType, () => {
  return { output: null };
});
