import type { Context } from 'moleculer';
import { newId } from '../../kernel/tenancy/ids.ts';
import type { ChatParams, ChatResult } from '../../kernel/models-contract.ts';
import { MODELS_ERR } from './errors.ts';
import { openKey, pickKey, touchLastUsed } from './key-store.ts';
import { streamChat } from './providers/call.ts';
import { ProviderFailure, type ProviderEvent, type ProviderRequest } from './providers/types.ts';
import type { ModelsService } from './service.ts';

/** fastest-validator params of models.chat and models.chatStream (ChatParams). */
export const CHAT_PARAMS = {
  $$strict: true,
  messages: {
    type: 'array',
    min: 1,
    max: 1000,
    items: {
      type: 'object',
      strict: true,
      props: { role: { type: 'enum', values: ['user', 'assistant'] }, content: { type: 'string', max: 1_000_000 } },
    },
  },
  system: { type: 'string', max: 1_000_000, optional: true },
  api_key_id: { type: 'string', min: 1, max: 64, optional: true },
  model: { type: 'string', trim: true, min: 1, max: 200, pattern: '^[\\x21-\\x7E]+$', optional: true },
  max_tokens: { type: 'number', integer: true, min: 1, max: 1_000_000, optional: true },
  temperature: { type: 'number', min: 0, max: 2, optional: true },
} as const;

/** A call ready to go to the provider: the key opened, the model chosen (the key's use is stamped meanwhile). */
export interface PreparedCall {
  request: ProviderRequest;
  entityId: string;
  apiKeyId: string;
}

/**
 * Everything known before the provider is called; throws NOT_FOUND, MODELS_ERR_NO_KEY or
 * MODELS_ERR_KEY_UNREADABLE.
 */
export async function prepareCall(svc: ModelsService, ctx: Context<ChatParams>): Promise<PreparedCall> {
  const p = ctx.params;
  const row = await pickKey(svc, ctx, p.api_key_id);
  const apiKey = openKey(svc, row);
  // the stamp is bookkeeping: the provider call does not wait for its round trip
  touchLastUsed(svc, row).catch((err) => svc.logger.warn({ err, api_key_id: row.id }, 'could not stamp the key as used'));
  return {
    entityId: row.entity_id,
    apiKeyId: row.id,
    request: {
      provider: row.provider,
      baseUrl: svc.providers.baseUrls[row.provider],
      apiKey,
      model: p.model ?? row.default_model,
      messages: p.messages,
      system: p.system,
      max_tokens: p.max_tokens,
      temperature: p.temperature,
    },
  };
}

/**
 * Streams the prepared call; `onDelta` sees each text delta. Resolves with the result (and
 * records its token counts), or rejects with the package's problem error for the failure.
 */
export async function runCall(svc: ModelsService, call: PreparedCall, onDelta: (text: string) => void, signal?: AbortSignal): Promise<ChatResult> {
  let text = '';
  let done: Extract<ProviderEvent, { type: 'done' }> | undefined;
  try {
    for await (const event of streamChat(call.request, { timeoutMs: svc.providers.timeoutMs, signal })) {
      if (event.type === 'delta') {
        text += event.text;
        onDelta(event.text);
      } else done = event;
    }
  } catch (err) {
    throw problemOf(err, call);
  }
  const result: ChatResult = { text, model: done!.model, provider: call.request.provider, api_key_id: call.apiKeyId, usage: done!.usage };
  await recordCall(svc, call, result).catch((err: unknown) => svc.logger.warn({ err, api_key_id: call.apiKeyId }, 'could not record the token usage of a model call'));
  return result;
}

/** The problem error of a failed provider call (what models.chat throws, what a stream's error line carries). */
function problemOf(err: unknown, call: PreparedCall): Error {
  if (!(err instanceof ProviderFailure)) return err as Error;
  const data = { provider: call.request.provider, provider_status: err.providerStatus, api_key_id: call.apiKeyId };
  switch (err.kind) {
    case 'rejected_key':
      return MODELS_ERR.PROVIDER_REJECTED_KEY(`The ${call.request.provider} provider rejected the key (${err.message}); rotate it (POST /api/v1/api-keys/${call.apiKeyId}/rotate).`, data);
    case 'timeout':
      return MODELS_ERR.PROVIDER_TIMEOUT(err.message, data);
    default:
      return MODELS_ERR.PROVIDER(err.message, data);
  }
}

async function recordCall(svc: ModelsService, call: PreparedCall, result: ChatResult): Promise<void> {
  await svc.models.ApiKey.sequelize!.query(
    'INSERT INTO model_calls (id, entity_id, api_key_id, provider, model, input_tokens, output_tokens) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    { bind: [newId(), call.entityId, call.apiKeyId, result.provider, result.model.slice(0, 200), result.usage.input_tokens, result.usage.output_tokens] },
  );
}
