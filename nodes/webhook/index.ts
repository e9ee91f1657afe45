import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `webhook`: the entry node of a run started by
 * `POST /api/v1/workflows/webhook/{token}`. Its output is `{method, headers, query, body}`.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'webhook',
  version: 1,
  category: 'entry',
  title: 'Webhook',
  description: 'Entry node for a webhook binding: its output is the request {method, headers, query, body}.',
  entry: true,
  config_schema: {
    type: 'object',
    properties: { description: { type: 'string', maxLength: 2000, default: '', description: 'What this step is for, for the people reading the workflow.', examples: ['Called by the shop when an order is paid.'] } },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  side_effect: 'none',
};

export default defineNodeType(nodeType, (params: { input?: unknown }) => {
  return { output: params.input ?? null };
});
