import { api } from '../../api/client';
import { ApiError } from '../../api/problem';
import { streamOf } from '../../api/stream';
import { readSse } from '../chat/sse';

/** One event of a run's stream: its SSE event name, its JSON data, and its id when durable. */
export interface RunEvent {
  id?: string;
  type: string;
  data: Record<string, unknown>;
}

export interface FollowRunOptions {
  signal: AbortSignal;
  onEvent(event: RunEvent): void;
  /** the stream opened (true) or dropped (false) */
  onConnected?(connected: boolean): void;
  /** a refusal reconnecting cannot mend (403, 404, …): the stream is given up and this says why */
  onRefused?(error: ApiError): void;
  /** the pause before reconnect attempt `n` (from 0); 0.5 s doubling up to 8 s unless given */
  retryDelay?(attempt: number): number;
}

const defaultDelay = (attempt: number): number => Math.min(8_000, 500 * 2 ** attempt);

function parse(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

/**
 * Follows `GET /api/v1/workflows/runs/{run_id}/events` with streaming fetch through the app's
 * client, so a 401 opens the login form and the request is repeated once signed in (an
 * EventSource would just fail). A cut connection (or one the server closes early) is opened
 * again with `Last-Event-ID` set to the last durable event's id, so nothing is missed or
 * repeated. Ends after `run.finished`, on abort, or on a refusal that is not a 401.
 */
export async function followRunEvents(runId: string, opts: FollowRunOptions): Promise<void> {
  const { signal } = opts;
  const delay = opts.retryDelay ?? defaultDelay;
  let lastId: string | undefined;
  let attempt = 0;
  while (!signal.aborted) {
    let finished = false;
    try {
      const body = await streamOf(
        api.GET('/api/v1/workflows/runs/{run_id}/events', {
          params: { path: { run_id: runId } },
          headers: lastId !== undefined ? { 'Last-Event-ID': lastId } : {},
          parseAs: 'stream',
          signal,
        }),
      );
      opts.onConnected?.(true);
      attempt = 0;
      await readSse(body, (e) => {
        if (signal.aborted) return;
        if (e.id !== undefined) lastId = e.id;
        opts.onEvent({ ...(e.id !== undefined ? { id: e.id } : {}), type: e.event, data: parse(e.data) });
        if (e.event === 'run.finished') finished = true;
      });
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof ApiError && !err.network) {
        opts.onConnected?.(false);
        opts.onRefused?.(err);
        return;
      }
      // anything else is a cut connection: try again below
    }
    opts.onConnected?.(false);
    if (finished || signal.aborted) return;
    await pause(delay(attempt++), signal);
  }
}
