import { NODE_EXECUTE_PARAMS } from '../../kernel/nodes/contract.ts';

/** Workflow node type `end`: finishes the run as completed; its `output` (else its input) is the run's output. */
const nodeType = {
  type: 'end',
  version: 1,
  category: 'logic',
  title: 'End',
  description: 'Finishes the run as completed, with config.output (else the input) as the run output.',
  config_schema: { type: 'object', properties: { output: {} }, additionalProperties: false },
  outputs: [],
  uncertain_effect: false,
};

export default {
  name: 'node.end',
  metadata: { nodeType },
  actions: {
    execute: {
      visibility: 'public',
      params: NODE_EXECUTE_PARAMS,
      handler(ctx: { params: { config: { output?: unknown }; input?: unknown } }) {
        const output = ctx.params.config.output !== undefined ? ctx.params.config.output : (ctx.params.input ?? null);
        return { output, finish: { status: 'completed', output } };
      },
    },
  },
};
