import type { Service } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { AddressPolicy } from '../../kernel/net/address-policy.ts';
import { safeRequest } from '../../kernel/net/safe-request.ts';
import { describeError } from '../../kernel/objects/errors.ts';
import { defineTool } from '../../kernel/tools/define.ts';
import { toolError } from '../../kernel/tools/errors.ts';
import type { ToolDeclaration } from '../../kernel/tools-contract.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const MAX_HEADERS = 50;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** set by the client itself; a caller setting them could only break the exchange */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'proxy-connection', 'expect']);

const declaration: ToolDeclaration = {
  name: 'http_request',
  description:
    'Makes one HTTP(S) request and answers {status, ok, headers, body, url}: body is parsed JSON when the response is JSON, else text. Loopback, link-local, private and unique-local addresses are refused unless the operator allowed them. An error status (4xx, 5xx) is an answer with ok false, not a failure. Redirects are followed (at most 5).',
  category: 'web',
  risk: 'medium',
  side_effect: 'non_idempotent',
  parameters: {
    type: 'object',
    properties: {
      method: { type: 'string', enum: [...METHODS], description: 'default GET' },
      url: { type: 'string', minLength: 1, maxLength: 8192, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'an http:// or https:// URL' },
      headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 8192 }, description: 'request headers by name' },
      body: { type: ['string', 'object', 'array', 'number', 'boolean', 'null'], description: 'a string is sent as it is; anything else as JSON (content-type application/json unless a header says otherwise)' },
      timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 600, description: 'bound of the whole exchange; at most the operator limit (WORKFLOW_HTTP_TIMEOUT_SECONDS)' },
    },
    required: ['url'],
    additionalProperties: false,
  },
};

interface Args {
  method?: (typeof METHODS)[number];
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  timeout_seconds?: number;
}

type HttpToolService = Service & { addressPolicy?: AddressPolicy };

function requestHeaders(given: Record<string, string> | undefined): Record<string, string> {
  const entries = Object.entries(given ?? {});
  if (entries.length > MAX_HEADERS) throw toolError(`headers: at most ${MAX_HEADERS} headers are allowed.`);
  const headers: Record<string, string> = { 'user-agent': 'wao-agent-tool/1' };
  for (const [name, value] of entries) {
    if (!TOKEN.test(name)) throw toolError(`headers: '${name}' is not a valid header name.`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw toolError(`headers: '${name}' is set by the client itself and cannot be given.`);
    if (BAD_VALUE.test(value)) throw toolError(`headers: the value of '${name}' contains a control character.`);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

export default defineTool<Args>(declaration, async (args, { service }) => {
  const svc = service as HttpToolService;
  const env = kernelOf(svc.broker).config.env;
  svc.addressPolicy ??= new AddressPolicy(env.WORKFLOW_HTTP_ALLOW);
  const method = args.method ?? 'GET';
  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    throw toolError(`url '${args.url.slice(0, 200)}' is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw toolError(`url: only http and https URLs are allowed, not ${url.protocol}`);
  const headers = requestHeaders(args.headers);
  let body: string | undefined;
  if (args.body !== undefined && args.body !== null) {
    if (method === 'GET' || method === 'HEAD') throw toolError(`body: a ${method} request has no body.`);
    body = typeof args.body === 'string' ? args.body : JSON.stringify(args.body);
    if (typeof args.body !== 'string' && !('content-type' in headers)) headers['content-type'] = 'application/json';
  }
  const seconds = Math.min(args.timeout_seconds ?? env.WORKFLOW_HTTP_TIMEOUT_SECONDS, env.WORKFLOW_HTTP_TIMEOUT_SECONDS);
  try {
    const res = await safeRequest({
      method,
      url: url.toString(),
      headers,
      body,
      timeoutMs: Math.ceil(seconds * 1000),
      maxBytes: env.WORKFLOW_HTTP_MAX_RESPONSE_BYTES,
      maxRedirects: 5,
      policy: svc.addressPolicy,
    });
    return { status: res.status, ok: res.status >= 200 && res.status < 400, headers: res.headers, body: res.body, url: res.url };
  } catch (err) {
    // refused targets, DNS and connection failures, timeouts, oversize answers: all for the model to read
    const why = err instanceof Error && err.name === 'BlockedTargetError' ? `refused: ${err.message}` : describeError(err);
    throw toolError(`${method} ${url.origin} failed: ${why}`, { tool: declaration.name });
  }
});
