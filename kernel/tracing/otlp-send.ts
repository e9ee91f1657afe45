/**
 * One OTLP/HTTP JSON export request with a bounded retry. It never throws: the outcome
 * is returned so the exporter decides what to log.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface SendOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** per attempt, in ms */
  timeout: number;
  /** total attempts, the first included */
  attempts: number;
  /** pause between attempts, in ms */
  retryDelay: number;
}

export type SendResult =
  | { ok: true; attempts: number; rejectedSpans: number; rejectionMessage?: string }
  | { ok: false; attempts: number; reason: string };

// The OTLP specification names these as the only retryable HTTP statuses.
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

interface PartialSuccess {
  rejectedSpans?: number | string;
  errorMessage?: string;
}

function readPartialSuccess(text: string): { rejectedSpans: number; rejectionMessage?: string } {
  try {
    const parsed = JSON.parse(text) as { partialSuccess?: PartialSuccess } | null;
    const partial = parsed?.partialSuccess;
    const rejectedSpans = Number(partial?.rejectedSpans ?? 0) || 0;
    return partial?.errorMessage ? { rejectedSpans, rejectionMessage: partial.errorMessage } : { rejectedSpans };
  } catch {
    // a collector may answer with an empty or non-JSON body on success
    return { rejectedSpans: 0 };
  }
}

type Attempt = { kind: 'done'; rejectedSpans: number; rejectionMessage?: string } | { kind: 'failed'; reason: string; retryable: boolean };

async function attemptOnce(options: SendOptions): Promise<Attempt> {
  try {
    const response = await fetch(options.url, {
      method: 'POST',
      headers: { ...options.headers, 'Content-Type': 'application/json' },
      body: options.body,
      signal: AbortSignal.timeout(options.timeout),
    });
    // read the body in every case so the keep-alive socket is released
    const text = await response.text();
    if (response.ok) return { kind: 'done', ...readPartialSuccess(text) };
    const reason = `HTTP ${response.status} ${response.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`;
    return { kind: 'failed', reason, retryable: RETRYABLE_STATUSES.has(response.status) };
  } catch (error) {
    const err = error as Error & { cause?: { message?: string } };
    const cause = err.cause?.message ? ` (${err.cause.message})` : '';
    return { kind: 'failed', reason: `${err.name}: ${err.message}${cause}`, retryable: true };
  }
}

export async function sendTraces(options: SendOptions): Promise<SendResult> {
  const attempts = Math.max(1, options.attempts);
  let lastReason = 'not sent';
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const outcome = await attemptOnce(options);
    if (outcome.kind === 'done') {
      return { ok: true, attempts: attempt, rejectedSpans: outcome.rejectedSpans, rejectionMessage: outcome.rejectionMessage };
    }
    lastReason = outcome.reason;
    if (!outcome.retryable) return { ok: false, attempts: attempt, reason: lastReason };
    if (attempt < attempts) await sleep(options.retryDelay);
  }
  return { ok: false, attempts, reason: lastReason };
}
