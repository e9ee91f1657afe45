import { defineNodeType, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';

/**
 * Workflow node type `respond`: the answer of an inline webhook. Config `status`, `headers` and
 * `body` are templates resolved by the engine; the caller of the webhook receives them as soon
 * as this step's receipt commits, and the run goes on.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'respond',
  version: 1,
  category: 'action',
  title: 'Respond to webhook',
  description: 'Sets the HTTP status, headers and body the webhook caller receives.',
  config_schema: {
    type: 'object',
    properties: {
      status: { type: 'integer', minimum: 100, maximum: 599, default: 200, description: 'The HTTP status the webhook caller receives.', examples: [201] },
      headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 8192 }, default: {}, description: 'Response headers (content-length, transfer-encoding, connection, keep-alive and upgrade are dropped).', examples: [{ 'x-request-id': '{{trigger.headers.x-request-id}}' }] },
      body: { default: null, description: 'The response body (templates allowed); null: none.', examples: [{ received: true, order: '{{trigger.body.id}}' }] },
    },
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  // the answer goes to the caller once the receipt commits: the step itself changes nothing
  side_effect: 'none',
};

const FORBIDDEN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade']);

export default defineNodeType(nodeType, (params: { config: { status?: unknown; headers?: Record<string, unknown>; body?: unknown } }) => {
  const { config } = params;
  const status = config.status === undefined ? 200 : Number(config.status);
  if (!Number.isInteger(status) || status < 100 || status > 599) throw new Error(`respond: status must be an integer 100-599, got ${JSON.stringify(config.status)}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) continue;
    headers[name] = String(value);
  }
  const response = { status, headers, body: config.body ?? null };
  return { output: response, respond: response };
});
