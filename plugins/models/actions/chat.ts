import { PassThrough } from 'node:stream';
import type { Context } from 'moleculer';
import { chatStreamLine, type ChatParams, type ChatResult } from '../../../kernel/models-contract.ts';
import { CHAT_PARAMS, prepareCall, runCall } from '../chat-run.ts';
import type { ModelsAction } from '../service.ts';

/**
 * `models.chat` (internal: no HTTP route): one answer from the entity's model provider, with
 * `ctx.meta.user` naming the entity. Contract and errors: kernel/models-contract.ts.
 * `timeout: 0`: bounded by MODEL_REQUEST_TIMEOUT_SECONDS, not by REQUEST_TIMEOUT_SECONDS.
 */
export const chat: ModelsAction = {
  visibility: 'public',
  timeout: 0,
  params: CHAT_PARAMS,
  async handler(ctx: Context<ChatParams>): Promise<ChatResult> {
    const call = await prepareCall(this, ctx);
    return runCall(this, call, () => undefined);
  },
};

/**
 * `models.chatStream` (internal): the same call, answered as a byte stream of NDJSON lines
 * (`delta`…, then one `done` or `error`); see kernel/models-contract.ts. Errors known before the
 * provider is called are thrown; provider failures arrive as the `error` line.
 */
export const chatStream: ModelsAction = {
  visibility: 'public',
  params: CHAT_PARAMS,
  async handler(ctx: Context<ChatParams>): Promise<PassThrough> {
    const call = await prepareCall(this, ctx);
    const stream = new PassThrough();
    const consumerGone = new AbortController();
    stream.on('close', () => consumerGone.abort());
    const write = (text: string) => void (stream.destroyed || stream.write(chatStreamLine({ type: 'delta', text })));
    runCall(this, call, write, consumerGone.signal).then(
      (result) => void (stream.destroyed || stream.end(chatStreamLine({ type: 'done', ...result }))),
      (err: { code?: unknown; type?: unknown; message?: unknown; data?: { provider_status?: number | null } }) => {
        if (consumerGone.signal.aborted || stream.destroyed) return;
        const known = typeof err.type === 'string' && err.type.startsWith('MODELS_ERR_') && typeof err.code === 'number';
        const status = known ? (err.code as number) : 500;
        if (!known) this.logger.error({ err, api_key_id: call.apiKeyId }, 'a model stream failed');
        stream.end(
          chatStreamLine({
            type: 'error',
            status,
            code: known ? (err.type as string) : 'INTERNAL_ERROR',
            message: known ? String(err.message) : 'An unexpected error occurred.',
            provider_status: err.data?.provider_status ?? null,
          }),
        );
      },
    );
    return stream;
  },
};
