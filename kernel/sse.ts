import { PassThrough } from 'node:stream';
import type { Context } from 'moleculer';

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
 * Makes an action's response an event stream (the gateway writes it unbuffered): its headers,
 * `comment` as the first line, a keep-alive comment every 15 s. `onEnd` runs once when the
 * stream ends, whoever ends it; `onClientGone` only when the client went away first.
 */
export function openSse(ctx: Context, comment: string, hooks: { onEnd?: () => void; onClientGone?: () => void } = {}): Sse {
  const meta = ctx.meta as Record<string, unknown>;
  meta.$responseType = 'text/event-stream; charset=utf-8';
  meta.$responseHeaders = { 'X-Accel-Buffering': 'no', Connection: 'keep-alive' };
  const stream = new PassThrough();
  let ended = false;
  const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const finish = (byClient: boolean) => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    if (byClient) hooks.onClientGone?.();
    hooks.onEnd?.();
    stream.end();
  };
  const clientGone = () => finish(true);
  stream.on('close', clientGone);
  stream.on('error', clientGone);
  stream.write(`: ${comment}\n\n`);
  return {
    stream,
    send: (e) => {
      if (!ended) stream.write(`${e.id !== undefined ? `id: ${e.id}\n` : ''}event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
    },
    end: () => finish(false),
    ended: () => ended,
  };
}

/** `Last-Event-ID` header, else `?last_event_id=`; 0 when neither is a positive integer. */
export function lastEventIdOf(params: { $req?: { headers: Record<string, string | string[] | undefined> }; last_event_id?: number }): number {
  const header = params.$req?.headers['last-event-id'];
  const value = Number(Array.isArray(header) ? header[0] : (header ?? params.last_event_id ?? 0));
  return Number.isInteger(value) && value > 0 ? value : 0;
}
