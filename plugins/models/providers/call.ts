import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { anthropic } from './anthropic.ts';
import { openAi } from './openai.ts';
import { scrubSecret } from './scrub.ts';
import { ProviderFailure, type ProviderAdapter, type ProviderEvent, type ProviderRequest, type StreamState } from './types.ts';

const ADAPTERS: Record<ProviderRequest['provider'], ProviderAdapter> = { openai: openAi, anthropic };

/** Largest error body read from a provider, and largest SSE event buffered. */
const MAX_ERROR_BODY = 64 * 1024;
const MAX_EVENT = 4 * 1024 * 1024;

export interface StreamOptions {
  /** the whole call, streaming included */
  timeoutMs: number;
  /** aborts the call (the consumer went away): fails with kind `aborted` */
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/**
 * Streams one chat completion from the provider: `delta` events as text arrives, then one
 * `done` with the model and usage. Every failure is a ProviderFailure whose message is scrubbed
 * of the key: the provider answering 401/403 (`rejected_key`), any other error status, a
 * refused connection, a malformed or cut stream, an in-stream error event (`provider`), the
 * deadline passing (`timeout`), or `signal` aborting (`aborted`). Leaving the loop early aborts
 * the HTTP request.
 */
export async function* streamChat(req: ProviderRequest, opts: StreamOptions): AsyncGenerator<ProviderEvent> {
  const adapter = ADAPTERS[req.provider];
  const scrub = (text: string) => scrubSecret(text, req.apiKey);
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const own = new AbortController();
  const signal = AbortSignal.any([deadline, own.signal, ...(opts.signal ? [opts.signal] : [])]);
  const state: StreamState = { model: req.model, usage: { input_tokens: 0, output_tokens: 0 }, complete: false, closed: false };
  const { url, headers, body } = adapter.request(req);
  try {
    const res = await (opts.fetch ?? fetch)(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
    if (!res.ok) {
      const text = await readBounded(res, MAX_ERROR_BODY);
      let said: string | undefined;
      try {
        said = adapter.errorMessage(JSON.parse(text));
      } catch {
        said = text.trim() || undefined;
      }
      const kind = res.status === 401 || res.status === 403 ? 'rejected_key' : 'provider';
      throw new ProviderFailure(kind, `${req.provider} answered ${res.status}${said ? `: ${said}` : ''}`, res.status); // scrubbed below
    }
    if (/\bjson\b/i.test(res.headers.get('content-type') ?? '')) {
      // an OpenAI-compatible server that ignores `stream: true` answers one completion
      const text = await readBounded(res, MAX_EVENT);
      yield* adapter.fromJson(parseJson(text, req.provider), state);
    } else {
      yield* readEvents(res, adapter, state);
      if (!state.complete) throw new ProviderFailure('provider', `The ${req.provider} stream ended before the answer was complete.`);
    }
    yield { type: 'done', model: state.model, usage: state.usage };
  } catch (err) {
    if (err instanceof ProviderFailure) throw new ProviderFailure(err.kind, scrub(err.message), err.providerStatus);
    if (deadline.aborted) throw new ProviderFailure('timeout', `${req.provider} gave no complete answer within ${Math.round(opts.timeoutMs / 1000)} s.`);
    if (opts.signal?.aborted) throw new ProviderFailure('aborted', 'The caller stopped reading.');
    throw new ProviderFailure('provider', scrub(`Could not reach ${req.provider} at ${new URL(url).origin}: ${describe(err)}`));
  } finally {
    own.abort(); // releases the connection when the consumer stops early
  }
}

async function* readEvents(res: Response, adapter: ProviderAdapter, state: StreamState): AsyncGenerator<ProviderEvent> {
  const pending: ProviderEvent[] = [];
  let failure: unknown;
  const parser = createParser({
    maxBufferSize: MAX_EVENT,
    onEvent(message: EventSourceMessage) {
      if (failure || state.closed) return;
      try {
        pending.push(...adapter.onEvent(message, state));
      } catch (err) {
        failure = err instanceof SyntaxError ? new ProviderFailure('provider', 'The provider sent an event that is not JSON.') : err;
      }
    },
    onError(err) {
      failure ??= new ProviderFailure('provider', `The provider sent a malformed event stream (${err.type}).`);
    },
  });
  if (!res.body) throw new ProviderFailure('provider', 'The provider answered without a body.');
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* pending.splice(0);
    if (failure) throw failure;
    if (state.closed) return;
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  yield* pending.splice(0);
  if (failure) throw failure;
}

async function readBounded(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= limit) break; // leaving the loop cancels the rest of the body
  }
  return text.slice(0, limit);
}

function parseJson(text: string, provider: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderFailure('provider', `${provider} answered a body that is not JSON.`);
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}
