import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `stop`: finishes the run at once; steps still pending do not run.
 * `fail: true` finishes it as failed with `message` as the error, else as completed.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'stop',
  version: 1,
  category: 'logic',
  title: 'Stop',
  description: 'Finishes the run at once: completed, or failed with message when fail is true.',
  config_schema: {
    type: 'object',
    properties: {
      fail: { type: 'boolean', default: false, description: 'true: the run finishes as failed with message as its error; false: as completed.', examples: [true] },
      message: { type: ['string', 'null'], maxLength: 2000, default: null, description: "Why the run stopped, in the step's output (and the run's error when fail); null: 'stopped' (or 'stopped by a stop step' when fail).", examples: ['No open invoices today.'] },
    },
    additionalProperties: false,
  },
  outputs: [],
  uncertain_effect: false,
  side_effect: 'none',
};

export default defineNodeType(nodeType, (params: { config: { fail?: boolean; message?: string | null }; input?: unknown }) => {
  const { config } = params;
  const message = config.message ?? (config.fail ? 'stopped by a stop step' : 'stopped');
  return { output: { stopped: true, message }, finish: config.fail ? { status: 'failed', error: message } : { status: 'completed', output: params.input ?? null } };
});
