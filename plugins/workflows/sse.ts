import { PassThrough } from 'node:stream';
import type { Context } from 'moleculer';
import { followRun } from './run-follow.ts';
import type { WorkflowsService } from './service.ts';

const HEARTBEAT_MS = 15_000;

/** One server-sent event; `id` only when the client may resume after it (Last-Event-ID). */
export interface SseEvent {
  id?: number;
  type: string;
  data: unknown;
}

export interface Sse {
  /** the action's response */
  stream: PassThrough;
  /** writes one event; nothing once ended */
  send(e: SseEvent): void;
  /** ends the response (once); also run when the client goes away or the stream fails */
  end(): void;
  ended(): boolean;
}

/**
 * Makes the action's response an event stream: its headers, `comment` as the first line, a
 * keep-alive comment every 15 s. `onEnd` runs once when the stream ends, whoever ends it.
 */
export function openSse(ctx: Context, comment: string, onEnd?: () => void): Sse {
  const meta = ctx.meta as Record<string, unknown>;
  meta.$responseType = 'text/event-stream; charset=utf-8';
  meta.$responseHeaders = { 'X-Accel-Buffering': 'no', Connection: 'keep-alive' };
  const stream = new PassThrough();
  let ended = false;
  const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    onEnd?.();
    stream.end();
  };
  stream.on('close', end);
  stream.on('error', end);
  stream.write(`: ${comment}\n\n`);
  return {
    stream,
    send: (e) => {
      if (!ended) stream.write(`${e.id !== undefined ? `id: ${e.id}\n` : ''}event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
    },
    end,
    ended: () => ended,
  };
}

export function lastEventIdOf(params: { $req?: { headers: Record<string, string | string[] | undefined> }; last_event_id?: number }): number {
  const header = params.$req?.headers['last-event-id'];
  const value = Number(Array.isArray(header) ? header[0] : (header ?? params.last_event_id ?? 0));
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * Opens a run's event stream as the action's response: replays durable events after
 * `afterSeq` from the database, then forwards live ones (no duplicates, none lost in between).
 *
 * The SSE events of a run stream (documented in the README):
 *   run.created, run.started, run.resumed, step.started, step.finished, step.skipped,
 *   run.paused, run.finished
 * Each durable event carries `id: <seq>`; reconnect with `Last-Event-ID: <seq>` (or
 * `?last_event_id=`) to get every event after it. `step.started` of a step that commits no
 * marker is sent live without an id and repeated with its id when its receipt commits.
 * The stream ends after `run.finished` (or `run.paused` for a run-stream).
 */
export async function openRunStream(svc: WorkflowsService, ctx: Context, runId: string, afterSeq: number, opts: { endOnPause?: boolean } = {}): Promise<PassThrough> {
  let stop: (() => void) | undefined;
  const sse = openSse(ctx, 'run events', () => stop?.());
  const entityId = (ctx.meta as { user?: { entity_id: string } }).user?.entity_id ?? '';
  stop = await followRun(svc, entityId, runId, afterSeq, sse, { endOnPause: opts.endOnPause ? 'always' : undefined });
  if (sse.ended()) stop();
  return sse.stream;
}
