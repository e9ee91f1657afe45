import { Readable } from 'node:stream';
import type { Context } from 'moleculer';
import { ERRORS } from './errors/catalogue.ts';
import { PG_INTEGER_MAX, queryInteger } from './query-integer.ts';

const HEARTBEAT_MS = 15_000;

/** One server-sent event; `id` only when the client may resume after it (Last-Event-ID). */
export interface SseEvent {
  id?: number;
  type: string;
  data: unknown;
}

export interface Sse {
  /** the action's response */
  stream: Readable;
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
  // pushed into, never held back (a frame is small, and a reader that lags gets them buffered)
  const stream = new Readable({ read() {} });
  let ended = false;
  const heartbeat = setInterval(() => stream.push(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const finish = (byClient: boolean) => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    if (byClient) hooks.onClientGone?.();
    hooks.onEnd?.();
    if (!stream.destroyed) stream.push(null);
  };
  const clientGone = () => finish(true);
  stream.on('close', clientGone);
  stream.on('error', clientGone);
  stream.push(`: ${comment}\n\n`);
  return {
    stream,
    send: (e) => {
      if (!ended) stream.push(`${e.id !== undefined ? `id: ${e.id}\n` : ''}event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
    },
    end: () => finish(false),
    ended: () => ended,
  };
}

/** `?last_event_id=`: what the `Last-Event-ID` header says, for a client that cannot set headers. */
export const LAST_EVENT_ID_PARAM = {
  last_event_id: queryInteger({ min: 0, max: PG_INTEGER_MAX, description: 'resume after this event id (as the `Last-Event-ID` header)' }),
} as const;

/**
 * `Last-Event-ID` header, else `?last_event_id=`; 0 when neither is given. The header is not
 * validated with the params, so it is held to the same bounds here: anything but such an
 * integer is a 422 naming it (an id past the integers the store holds would fail the query).
 */
export function lastEventIdOf(params: { $req?: { headers: Record<string, string | string[] | undefined> }; last_event_id?: number }): number {
  const header = params.$req?.headers['last-event-id'];
  if (header === undefined) return params.last_event_id ?? 0;
  const text = (Array.isArray(header) ? header[0] : header).trim();
  const value = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value <= PG_INTEGER_MAX)) {
    throw ERRORS.VALIDATION_FAILED(`The Last-Event-ID header must be an event id, an integer from 0 to ${PG_INTEGER_MAX}.`, [{ field: 'Last-Event-ID', message: `must be an integer from 0 to ${PG_INTEGER_MAX}`, type: 'number' }]);
  }
  return value;
}
