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
    properties: { fail: { type: 'boolean', default: false }, message: { type: 'string', maxLength: 2000 } },
    additionalProperties: false,
  },
  outputs: [],
  uncertain_effect: false,
};

export default defineNodeType(nodeType, (params: { config: { fail?: boolean; message?: string }; input?: unknown }) => {
  const { config } = params;
  const message = config.message ?? (config.fail ? 'stopped by a stop step' : 'stopped');
  return { output: { stopped: true, message }, finish: config.fail ? { status: 'failed', error: message } : { status: 'completed', output: params.input ?? null } };
});
