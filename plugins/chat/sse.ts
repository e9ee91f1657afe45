import { PassThrough } from 'node:stream';
import type { Context } from 'moleculer';
import type { Frame } from './frames.ts';

const HEARTBEAT_MS = 15_000;

export interface ChatSse {
  /** the action's response */
  stream: PassThrough;
  send(frame: Frame): void;
  /** ends the response (once) */
  end(): void;
  ended(): boolean;
}

/**
 * Makes the action's response an event stream of chat frames (`id:` only on durable frames),
 * with a keep-alive comment every 15 s. `onClientGone` runs once if the client goes away
 * before the server ends the stream.
 */
export function openChatSse(ctx: Context, onClientGone: () => void): ChatSse {
  const meta = ctx.meta as Record<string, unknown>;
  meta.$responseType = 'text/event-stream; charset=utf-8';
  meta.$responseHeaders = { 'X-Accel-Buffering': 'no', Connection: 'keep-alive' };
  const stream = new PassThrough();
  let ended = false;
  const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const gone = () => {
    clearInterval(heartbeat);
    if (ended) return;
    ended = true;
    onClientGone();
  };
  stream.on('close', gone);
  stream.on('error', gone);
  stream.write(': chat\n\n');
  return {
    stream,
    send(frame) {
      if (!ended) stream.write(`${frame.id !== undefined ? `id: ${frame.id}\n` : ''}event: ${frame.type}\ndata: ${JSON.stringify(frame.data)}\n\n`);
    },
    end() {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      stream.end();
    },
    ended: () => ended,
  };
}

/** `Last-Event-ID` header, else `?last_event_id=`; 0 when neither is a positive integer. */
export function lastEventIdOf(params: { $req?: { headers: Record<string, string | string[] | undefined> }; last_event_id?: number }): number {
  const header = params.$req?.headers['last-event-id'];
  const value = Number(Array.isArray(header) ? header[0] : (header ?? params.last_event_id ?? 0));
  return Number.isInteger(value) && value > 0 ? value : 0;
}
