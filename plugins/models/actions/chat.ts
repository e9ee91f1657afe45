import type { Readable } from 'node:stream';
import type { Context } from 'moleculer';
import type { ChatDoneLine, ChatParams, ChatResult } from '../../../kernel/models-contract.ts';
import type { GenerateResult } from '../../../kernel/models-generate-contract.ts';
import { CHAT_PARAMS } from '../params.ts';
import type { ModelsAction } from '../service.ts';
import { streamTurn } from '../stream.ts';
import { prepareTurn, runTurn } from '../turn.ts';

/** Chat is a turn without tools: the same SDK path as models.generate, answered in the chat contract's shape. */
const chatResult = (r: GenerateResult): ChatResult => ({ text: r.text, model: r.model, provider: r.provider, api_key_id: r.api_key_id, usage: r.usage });

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
    const turn = await prepareTurn(this, ctx, ctx.params, 'chat');
    return chatResult(await runTurn(this, turn, () => undefined));
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
  async handler(ctx: Context<ChatParams>): Promise<Readable> {
    const turn = await prepareTurn(this, ctx, ctx.params, 'chat');
    return streamTurn(this, turn, {
      eventLine: (e) => (e.type === 'text.delta' ? { type: 'delta', text: e.text } : undefined),
      doneLine: (r): ChatDoneLine => ({ type: 'done', ...chatResult(r) }),
    });
  },
};
