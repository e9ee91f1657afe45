import type { IncomingMessage } from 'node:http';
import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { newRunOf } from '../run-launch.ts';
import type { Respond } from '../engine/engine.ts';
import type { WorkflowsAction } from '../service.ts';
import { webhookWorkspace } from '../workspace-of.ts';

type WebhookParams = { token: string; $req: IncomingMessage & { body?: unknown; query?: Record<string, unknown> } };

const RESPONSE_HEADERS_REFUSED = new Set(['content-length', 'transfer-encoding', 'connection', 'set-cookie']);
/** an HTTP header name (RFC 9110 token); a respond step's other keys are dropped */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function notFound(): Error {
  return ERRORS.NOT_FOUND('No webhook with this token.', { resource: 'workflow_webhook' });
}

/**
 * `POST /api/v1/workflows/webhook/{token}` (public: the token is the binding's secret). Runs the
 * bound workflow inline: a `respond` step sets the HTTP answer as soon as its receipt commits;
 * without one the caller gets 202 `{run_id, status}`. A run still going after
 * WORKFLOW_WEBHOOK_INLINE_SECONDS goes on in the background and the caller gets 202.
 */
export const webhook: WorkflowsAction = {
  rest: { method: 'POST', path: '/webhook/:token', passReqResToParams: true },
  // public: a key is one binding's (its token's), not a tenant's
  idempotency: { scope_param: 'token' },
  workspaceOf: webhookWorkspace,
  auth: false,
  summary: 'Run a webhook binding inline',
  description:
    'Public; the token in the path is the binding secret (a wrong or rotated token is 404). The body must be JSON of at most WORKFLOW_WEBHOOK_MAX_BODY_BYTES (413 above, 400 when malformed, 415 for another media type). `{{trigger}}` is `{method, headers, query, body}`. A `respond` step sets status, headers and body; without one the answer is 202 `{run_id, status}`.',
  tags: ['workflows'],
  params: { $$strict: false, token: { type: 'string', min: 1, max: 200 }, $req: { type: 'any', optional: true }, $res: { type: 'any', optional: true } },
  response: { 200: { description: 'What the workflow\'s respond step sets', schema: {} }, 202: { type: 'object', properties: { run_id: { type: 'string' }, status: { type: 'string' } }, required: ['run_id', 'status'] } },
  async handler(ctx: Context<WebhookParams>) {
    const req = ctx.params.$req;
    const limit = this.env.WORKFLOW_WEBHOOK_MAX_BODY_BYTES;
    const declared = Number(req?.headers['content-length'] ?? 0);
    const body = req?.body ?? null;
    if (declared > limit || (declared === 0 && body !== null && Buffer.byteLength(JSON.stringify(body)) > limit)) {
      throw ERRORS.PAYLOAD_TOO_LARGE(`A webhook body may be at most ${limit} bytes.`, { limit });
    }
    const binding = await this.webhooks.lookup(ctx.params.token);
    if (!binding || !binding.enabled || binding.trigger_type !== 'webhook') throw notFound();
    const trigger = { method: req?.method ?? 'POST', headers: { ...(req?.headers ?? {}) }, query: req?.query ?? {}, body };
    const run = newRunOf(binding.definition, { binding, owner_id: binding.created_by, trigger_type: 'webhook', trigger });
    const inline = await this.engine.startInline(run);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'bound'>((resolve) => (timer = setTimeout(() => resolve('bound'), this.env.WORKFLOW_WEBHOOK_INLINE_SECONDS * 1000)));
    const first = await Promise.race([inline.responded, inline.finished.catch((err) => ({ status: 'failed', error: String(err) })), bound]);
    clearTimeout(timer);
    const meta = ctx.meta as { $statusCode?: number; $responseHeaders?: Record<string, string>; $responseType?: string };
    if (first === 'bound') {
      await inline.detach();
      meta.$statusCode = 202;
      return { run_id: inline.run_id, status: 'running' };
    }
    if ('body' in first && 'headers' in first) {
      const response = first as Respond;
      meta.$statusCode = response.status;
      // a Content-Type HTTP cannot carry is dropped (the default applies), not URI-encoded into nonsense
      const headers = Object.fromEntries(
        Object.entries(response.headers).filter(([k, v]) => HEADER_NAME.test(k) && !RESPONSE_HEADERS_REFUSED.has(k.toLowerCase()) && (k.toLowerCase() !== 'content-type' || /^[\t\x20-\x7e]*$/.test(String(v)))),
      );
      headers['X-Workflow-Run-Id'] = inline.run_id;
      meta.$responseHeaders = headers;
      const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
      if (typeof response.body === 'string' && contentType && !/json/i.test(contentType)) {
        meta.$responseType = contentType;
        return response.body;
      }
      return response.body ?? null;
    }
    meta.$statusCode = 202;
    return { run_id: inline.run_id, status: (first as { status: string }).status === 'lost' ? 'running' : (first as { status: string }).status };
  },
};
