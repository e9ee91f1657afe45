import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { validateJsonSchema, type SchemaProblem } from '../../kernel/json-schema/validate.ts';
import type { GenerateParams, GenerateResult } from '../../kernel/models-generate-contract.ts';
import { MODELS_ERR } from './errors.ts';
import { openKey, pickKey, touchLastUsed } from './key-store.ts';
import { type AttemptOutcome, type AttemptRequest, type TurnEvent } from './sdk/attempt.ts';
import { toFailure, ProviderFailure } from './sdk/failure.ts';
import { fileReader } from './sdk/files.ts';
import type { ModelTarget } from './sdk/language-model.ts';
import { toModelMessages } from './sdk/prompt.ts';
import type { ModelsService } from './service.ts';

/** The longest Retry-After a call waits for; a provider asking for more fails the call at once. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** Backoff before retry n (no Retry-After): 500 ms, 1 s, 2 s, … */
const BACKOFF_BASE_MS = 500;

/** A turn ready to go to the provider: the key opened, the model chosen, files read. */
export interface PreparedTurn {
  entityId: string;
  apiKeyId: string;
  target: ModelTarget;
  /** the target is the key's own base_url, reached through the SSRF guard */
  guarded: boolean;
  request: Omit<AttemptRequest, 'target'>;
  attribution: { purpose: string; workspace_id: string | null; agent_id: string | null; run_id: string | null };
}

/**
 * Everything known before the provider is called; throws NOT_FOUND (the key, or a file not the
 * entity's), MODELS_ERR_NO_KEY or MODELS_ERR_KEY_UNREADABLE.
 */
export async function prepareTurn(svc: ModelsService, ctx: Context, p: GenerateParams, defaultPurpose: string): Promise<PreparedTurn> {
  const row = await pickKey(svc, ctx, p.api_key_id);
  const messages = await toModelMessages(p.messages, fileReader(kernelOf(svc.broker).objects, row.entity_id));
  const apiKey = openKey(svc, row);
  // the stamp is bookkeeping: the provider call does not wait for its round trip
  touchLastUsed(svc, row).catch((err) => svc.logger.warn({ err, api_key_id: row.id }, 'could not stamp the key as used'));
  const own = row.base_url ?? undefined;
  return {
    entityId: row.entity_id,
    apiKeyId: row.id,
    target: {
      provider: row.provider,
      apiKey,
      model: p.model ?? row.default_model,
      // a key's own base URL is user input: it goes through the SSRF guard; the deployment's is trusted
      baseUrl: own ?? svc.providers.baseUrls[row.provider as 'openai' | 'anthropic'],
      fetch: own ? svc.providers.guardedFetch : globalThis.fetch,
    },
    guarded: own !== undefined,
    request: { messages, system: p.system, tools: p.tools, tool_choice: p.tool_choice, output: p.output, max_tokens: p.max_tokens, temperature: p.temperature },
    attribution: { purpose: p.purpose ?? defaultPurpose, workspace_id: p.workspace_id ?? null, agent_id: p.agent_id ?? null, run_id: p.run_id ?? null },
  };
}

/**
 * Runs the turn: attempts until one succeeds, retrying a 429 (after its Retry-After, at most
 * 60 s), a 5xx or a dropped connection with exponential backoff, at most MODEL_MAX_RETRIES
 * times, and never once anything was streamed to the caller (a retry would repeat it). `emit`
 * sees the deltas, calls and `retry` events. Records the token counts of an answered turn;
 * rejects with the package's problem error.
 */
export async function runTurn(svc: ModelsService, turn: PreparedTurn, emit: (e: TurnEvent) => void, callerSignal?: AbortSignal): Promise<GenerateResult> {
  const { timeoutMs, maxRetries } = svc.providers;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal ? AbortSignal.any([deadline, callerSignal]) : deadline;
  const failureOf = (err: unknown) => toFailure(err, { provider: turn.target.provider, apiKey: turn.target.apiKey, timedOut: deadline.aborted, aborted: callerSignal?.aborted === true, timeoutMs });
  let outcome: AttemptOutcome | undefined;
  let attempt = 1;
  for (; !outcome; attempt++) {
    let emitted = false;
    try {
      outcome = await svc.providers.threads.run({ ...turn.request, target: turn.target }, turn.guarded, signal, (e) => {
        emitted = true;
        emit(e);
      });
      break;
    } catch (err) {
      const failure = failureOf(err);
      if (!failure.retryable || emitted || attempt > maxRetries) throw problemOf(failure, turn, attempt);
      if (failure.retryAfterMs !== undefined && failure.retryAfterMs > MAX_RETRY_AFTER_MS) {
        const asked = Math.ceil(failure.retryAfterMs / 1000);
        throw problemOf(new ProviderFailure(failure.kind, `${failure.message} (it asked to retry after ${asked} s, longer than the ${MAX_RETRY_AFTER_MS / 1000} s a call waits)`, failure), turn, attempt);
      }
      const wait = failure.retryAfterMs ?? BACKOFF_BASE_MS * 2 ** (attempt - 1);
      emit({ type: 'retry', attempt: attempt + 1, wait_ms: wait, reason: failure.message });
      try {
        await sleep(wait, undefined, { signal });
      } catch (slept) {
        throw problemOf(failureOf(slept), turn, attempt);
      }
    }
  }
  const result: GenerateResult = {
    text: outcome.text,
    tool_calls: outcome.tool_calls,
    finish_reason: outcome.finish_reason,
    usage: outcome.usage,
    model: outcome.model ?? turn.target.model,
    provider: turn.target.provider,
    api_key_id: turn.apiKeyId,
    attempts: attempt,
  };
  await recordCall(svc, turn, result).catch((err: unknown) => svc.logger.warn({ err, api_key_id: turn.apiKeyId }, 'could not record the token usage of a model call'));
  if (turn.request.output && !result.tool_calls.length) result.object = checkedObject(turn, result);
  return result;
}

/** The structured answer, parsed and checked against the schema; else MODELS_ERR_OUTPUT_INVALID with the problems and the text. */
function checkedObject(turn: PreparedTurn, result: GenerateResult): unknown {
  let value: unknown;
  let problems: SchemaProblem[];
  try {
    value = JSON.parse(result.text);
    problems = validateJsonSchema(turn.request.output!.schema, value);
  } catch {
    problems = [{ path: '', pointer: '', message: 'the answer is not JSON' }];
  }
  if (!problems.length) return value;
  const listed = problems.slice(0, 5).map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ');
  throw MODELS_ERR.OUTPUT_INVALID(`The model's answer does not match the output schema: ${listed}.`, {
    problems: problems.slice(0, 50),
    text: result.text.slice(0, 20_000),
    provider: result.provider,
    api_key_id: result.api_key_id,
    model: result.model,
    usage: result.usage,
    attempts: result.attempts,
  });
}

/** The problem error of a failed provider call (what the actions throw, what a stream's error line carries). */
function problemOf(f: ProviderFailure, turn: PreparedTurn, attempts: number): Error {
  const data = { provider: turn.target.provider, provider_status: f.providerStatus, api_key_id: turn.apiKeyId, attempts };
  switch (f.kind) {
    case 'rejected_key':
      return MODELS_ERR.PROVIDER_REJECTED_KEY(`The ${turn.target.provider} provider rejected the key (${f.message}); rotate it (POST /api/v1/api-keys/${turn.apiKeyId}/rotate).`, data);
    case 'timeout':
      return MODELS_ERR.PROVIDER_TIMEOUT(f.message, data);
    case 'blocked':
      return MODELS_ERR.BASE_URL_BLOCKED(`The key's base_url is refused: ${f.message}.`, { ...data, field: 'base_url' });
    default:
      return MODELS_ERR.PROVIDER(attempts > 1 ? `${f.message} (after ${attempts} attempts)` : f.message, data);
  }
}

async function recordCall(svc: ModelsService, turn: PreparedTurn, result: GenerateResult): Promise<void> {
  const a = turn.attribution;
  await svc.usage.record({
    entity_id: turn.entityId, api_key_id: turn.apiKeyId, provider: result.provider, model: result.model, input_tokens: result.usage.input_tokens, output_tokens: result.usage.output_tokens,
    purpose: a.purpose, workspace_id: a.workspace_id, agent_id: a.agent_id, run_id: a.run_id,
  });
}
