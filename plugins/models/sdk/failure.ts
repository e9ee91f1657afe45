import { APICallError } from 'ai';
import { scrubSecret } from '../providers/scrub.ts';

type FailureKind = 'rejected_key' | 'provider' | 'timeout' | 'aborted' | 'blocked';

/**
 * A provider call that failed, its message already scrubbed of the key. `retryable`: a 429, a
 * 5xx or a dropped connection; `retryAfterMs`: what a 429 (or 503) asked for in Retry-After.
 * The package maps it to its problem errors; nothing here knows the broker.
 */
export class ProviderFailure extends Error {
  readonly kind: FailureKind;
  readonly providerStatus: number | null;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(kind: FailureKind, message: string, opts: { providerStatus?: number | null; retryable?: boolean; retryAfterMs?: number } = {}) {
    super(message);
    this.name = 'ProviderFailure';
    this.kind = kind;
    this.providerStatus = opts.providerStatus ?? null;
    this.retryable = opts.retryable ?? false;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

const RETRYABLE_NETWORK = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'ECONNABORTED', 'EAI_AGAIN']);

export interface FailureContext {
  provider: string;
  apiKey: string;
  /** the call's deadline passed */
  timedOut: boolean;
  /** the caller went away */
  aborted: boolean;
  timeoutMs: number;
}

/** Any error of one SDK attempt as a ProviderFailure, scrubbed of the key. */
export function toFailure(err: unknown, c: FailureContext): ProviderFailure {
  const scrub = (text: string) => scrubSecret(text, c.apiKey);
  if (err instanceof ProviderFailure) return new ProviderFailure(err.kind, scrub(err.message), err);
  if (c.aborted) return new ProviderFailure('aborted', 'The caller stopped reading.');
  if (c.timedOut) return new ProviderFailure('timeout', `${c.provider} gave no complete answer within ${Math.round(c.timeoutMs / 1000)} s.`);
  const blocked = findInChain(err, (e) => (e as Error).name === 'BlockedTargetError') as (Error & { reason?: string }) | undefined;
  if (blocked) return new ProviderFailure('blocked', scrub(blocked.message));
  if (APICallError.isInstance(err) && err.statusCode !== undefined) {
    const status = err.statusCode;
    const said = errorMessageOf(err.responseBody) ?? err.message;
    const message = scrub(`${c.provider} answered ${status}${said ? `: ${said}` : ''}`);
    if (status === 401 || status === 403) return new ProviderFailure('rejected_key', message, { providerStatus: status });
    const retryable = status === 429 || status >= 500;
    return new ProviderFailure('provider', message, { providerStatus: status, retryable, retryAfterMs: retryAfterOf(err.responseHeaders) });
  }
  const code = networkCode(err);
  if (code) return new ProviderFailure('provider', scrub(`Could not reach ${c.provider}: ${code}`), { retryable: RETRYABLE_NETWORK.has(code) });
  if (APICallError.isInstance(err)) return new ProviderFailure('provider', scrub(`Could not reach ${c.provider}: ${err.message}`), { retryable: err.isRetryable });
  return new ProviderFailure('provider', scrub(describe(err)));
}

/** A provider's own words in an error body: OpenAI `{error: {message}}`, Anthropic `{type: 'error', error: {message}}`. */
function errorMessageOf(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    const message = (parsed.error as { message?: unknown } | undefined)?.message ?? parsed.message;
    if (typeof message === 'string') return message;
  } catch {
    /* not JSON: the text itself */
  }
  return body.trim().slice(0, 300) || undefined;
}

/** Retry-After in ms: `retry-after-ms`, else `retry-after` as seconds or an HTTP date. */
export function retryAfterOf(headers: Record<string, string> | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  const ms = Number.parseFloat(lower['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const raw = lower['retry-after']?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** What went wrong inside a stream (an in-stream error event, a body that is not the API's). */
function describe(err: unknown): string {
  if (err && typeof err === 'object' && !(err instanceof Error)) {
    // an in-stream error event: OpenAI `{error: {message}}` chunks, Anthropic `error` events
    const message = (err as { message?: unknown }).message ?? ((err as { error?: { message?: unknown } }).error?.message);
    if (typeof message === 'string') return `The provider sent an error in the stream: ${message}`;
    return 'The provider sent an error in the stream.';
  }
  const name = (err as Error | undefined)?.name ?? '';
  if (name === 'AI_JSONParseError') return 'The provider sent an answer that is not JSON.';
  if (name === 'AI_TypeValidationError') return 'The provider sent an answer that does not have the shape of its API.';
  // @ai-sdk/anthropic's words for a first stream event it could not parse
  if (err instanceof Error && /normalized .* stream error/i.test(err.message)) return 'The provider sent a stream that is not JSON events of its API.';
  if (name === 'AI_EmptyResponseBodyError') return 'The provider answered without a body.';
  return err instanceof Error ? `The provider call failed: ${err.message}` : `The provider call failed: ${String(err)}`;
}

function findInChain(err: unknown, test: (e: unknown) => boolean): unknown {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) if (test(e)) return e;
  return undefined;
}

function networkCode(err: unknown): string | undefined {
  const hit = findInChain(err, (e) => typeof (e as { code?: unknown }).code === 'string' && /^[A-Z_]+$/.test((e as { code: string }).code));
  if (hit) return (hit as { code: string }).code;
  const message = findInChain(err, (e) => e instanceof Error && /socket hang up|terminated|other side closed/i.test(e.message));
  return message ? 'ECONNRESET' : undefined;
}
