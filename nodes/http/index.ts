import type { Context, Service } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { AddressPolicy } from '../../kernel/net/address-policy.ts';
import { RequestDeadlineError, safeRequest } from '../../kernel/net/safe-request.ts';
import { NODE_EXECUTE_PARAMS, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { WORKFLOWS_INTERRUPT_EVENT } from '../../kernel/nodes/durable.ts';
import { RunAborts } from '../../kernel/nodes/interruptible.ts';
import { NodeStepError } from '../../kernel/nodes/step-error.ts';

/**
 * Workflow node type `http`: one HTTP request. Safe by default: targets resolving to loopback,
 * link-local (169.254.169.254 included), private or unique-local addresses are refused, checked
 * against the address actually connected to, on every redirect; WORKFLOW_HTTP_ALLOW opens
 * chosen hosts or CIDRs. Responses are capped (WORKFLOW_HTTP_MAX_RESPONSE_BYTES) and bounded in
 * time (config.timeout, else WORKFLOW_HTTP_TIMEOUT_SECONDS; past config.timeout the step fails
 * with STEP_TIMEOUT). A cancel of the run (`workflows.run.interrupt`) destroys the request at
 * once. POST and PATCH have an uncertain external effect: a step in flight when its worker
 * died is reconciled, never repeated.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'http',
  version: 1,
  category: 'action',
  title: 'HTTP request',
  description: 'Calls an HTTP endpoint and outputs {status, ok, headers, body}.',
  config_schema: {
    type: 'object',
    properties: {
      method: { type: 'string', enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], default: 'GET', description: 'The HTTP method; POST and PATCH have an uncertain effect (a step in flight when its worker died is reconciled, never repeated).', examples: ['POST'] },
      url: { type: 'string', minLength: 1, maxLength: 8192, description: 'The URL (templates allowed); loopback, link-local and private addresses are refused unless WORKFLOW_HTTP_ALLOW opens them.', examples: ['https://api.example.com/orders/{{trigger.order_id}}'] },
      headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 8192 }, default: {}, description: 'Request headers (templates allowed); user-agent is wao-workflows/1 unless given.', examples: [{ authorization: 'Bearer {{vars.token}}' }] },
      body: { default: null, description: 'The request body: a string as is, anything else as JSON (content-type application/json unless given); null: none.', examples: [{ status: 'paid', order: '{{trigger.order_id}}' }] },
      timeout: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 3600, default: null, description: 'Seconds the request may take, redirects included; past it the step fails with STEP_TIMEOUT (null: WORKFLOW_HTTP_TIMEOUT_SECONDS).', examples: [10] },
      follow_redirects: { type: 'boolean', default: true, description: 'Follow up to 5 redirects (each target checked against the address policy); false: answer the redirect itself.', examples: [false] },
      fail_on_error_status: { type: 'boolean', default: true, description: 'A status of 400 or above fails the step; false: it is the output like any other.', examples: [false] },
      output: { type: 'string', enum: ['full', 'body'], default: 'full', description: 'full: {status, ok, headers, body, url}; body: the response body alone (as an n8n HTTP Request node answers).', examples: ['body'] },
    },
    required: ['url'],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: { config_key: 'method', values: ['POST', 'PATCH'] },
  // a POST or PATCH may do again what it did; other methods are meant not to
  side_effect: 'non_idempotent',
};

type Config = { method?: string; url: string; headers?: Record<string, string>; body?: unknown; timeout?: number | null; follow_redirects?: boolean; fail_on_error_status?: boolean; output?: 'full' | 'body' };
type HttpNodeService = Service & { policy?: AddressPolicy };
type Params = { config: Config; context?: { run_id?: string } };

const aborts = new RunAborts();

/** The request's failure as the step's: a cancel's own error, config.timeout's STEP_TIMEOUT, else as it came. */
function stepError(err: unknown, signal: AbortSignal, config: Config): unknown {
  if (signal.aborted) return signal.reason;
  if (err instanceof RequestDeadlineError && typeof config.timeout === 'number') return new NodeStepError(`The request did not finish within the step's timeout of ${config.timeout} s.`, 'STEP_TIMEOUT');
  return err;
}

export default {
  name: 'node.http',
  metadata: { nodeType },
  actions: {
    execute: {
      visibility: 'public',
      timeout: 0,
      params: NODE_EXECUTE_PARAMS,
      async handler(this: HttpNodeService, ctx: Context<Params>) {
        const env = kernelOf(this.broker).config.env;
        this.policy ??= new AddressPolicy(env.WORKFLOW_HTTP_ALLOW);
        const { config } = ctx.params;
        const method = (config.method ?? 'GET').toUpperCase();
        const headers: Record<string, string> = { 'user-agent': 'wao-workflows/1', ...(config.headers ?? {}) };
        let body: string | undefined;
        if (config.body !== undefined && config.body !== null) {
          body = typeof config.body === 'string' ? config.body : JSON.stringify(config.body);
          if (typeof config.body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
        }
        const timeoutMs = (config.timeout ?? env.WORKFLOW_HTTP_TIMEOUT_SECONDS) * 1000;
        const tracked = aborts.track(ctx.params.context?.run_id ?? '');
        let res: Awaited<ReturnType<typeof safeRequest>>;
        try {
          res = await safeRequest({
            method,
            url: config.url,
            headers,
            body,
            timeoutMs,
            maxBytes: env.WORKFLOW_HTTP_MAX_RESPONSE_BYTES,
            maxRedirects: config.follow_redirects === false ? 0 : 5,
            policy: this.policy,
            signal: tracked.signal,
          });
        } catch (err) {
          throw stepError(err, tracked.signal, config);
        } finally {
          tracked.release();
        }
        const ok = res.status >= 200 && res.status < 400;
        if (!ok && config.fail_on_error_status !== false) throw new Error(`http: ${method} ${res.url} answered ${res.status}`);
        if (config.output === 'body') return { output: res.body };
        return { output: { status: res.status, ok, headers: res.headers, body: res.body, url: res.url } };
      },
    },
  },
  events: {
    [WORKFLOWS_INTERRUPT_EVENT](ctx: Context<{ run_id?: unknown; reason?: unknown }>) {
      if (typeof ctx.params?.run_id === 'string' && ctx.params.run_id) aborts.interrupt(ctx.params.run_id, String(ctx.params.reason ?? 'the run was interrupted'));
    },
  },
};
