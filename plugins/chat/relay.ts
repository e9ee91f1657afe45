import type { Readable } from 'node:stream';
import type { Context } from 'moleculer';
import { RunSegment } from './frames.ts';
import { interruptRun, runLines, settleFromRun, settlementOf } from './runs.ts';
import { openSse } from '../../kernel/sse.ts';
import { getMessage, settleMessage, type Caller, type MessageRow } from './store.ts';
import type { ChatService } from './service.ts';

export interface RelayOptions {
  /** the client going away stops the run's model stream (POST /chat/stream; not a reconnecting reader) */
  interruptOnGone: boolean;
}

/** The live relays of this node, by assistant message: each settles its message at its end. */
const relaying = new Map<string, Set<{ outcomeLeft: boolean }>>();

/**
 * Whether a live relay on this node follows the message: then the run outcome's settling (a
 * second follower of the run, from its start) is left to it, and a relay whose client goes away
 * before it settled does that settling itself.
 */
export function leaveToRelay(messageId: string): boolean {
  const relays = relaying.get(messageId);
  if (!relays?.size) return false;
  for (const r of relays) r.outcomeLeft = true;
  return true;
}

/**
 * The chat SSE of one assistant message: `message.start`, then the run's events after `after`
 * as chat frames (RunSegment), and once the run ends or pauses the message settled (by this
 * stream, unless another writer was first) and `message.end`. Answers the response stream.
 */
export function relayRun(svc: ChatService, ctx: Context, who: Caller, message: MessageRow, after: number, opts: RelayOptions): Readable {
  const runId = message.run_id!;
  let close: (() => void) | undefined;
  const sse = openSse(ctx, 'chat', {
    onClientGone: () => {
      close?.();
      if (opts.interruptOnGone) interruptRun(svc.broker, runId, 'the chat client went away');
    },
  });
  sse.send({ type: 'message.start', data: { conversation_id: message.conversation_id, message_id: message.id, run_id: runId } });
  const watch = { outcomeLeft: false };
  let settled = false;
  const relays = relaying.get(message.id) ?? new Set();
  relaying.set(message.id, relays.add(watch));
  const pump = async () => {
    const segment = new RunSegment(runId, message.workflow_id ?? null);
    try {
      const follow = await runLines(svc.broker, who, runId, after);
      close = follow.close;
      if (sse.ended()) return follow.close();
      // the event stream itself ends at the run's end or the pause it still waits in (an older pause of a replay goes on)
      for await (const line of follow.lines) for (const frame of segment.add(line)) sse.send(frame);
      follow.close();
    } catch (err) {
      if (sse.ended()) return; // the client went away and its run events were closed
      svc.logger.warn({ err, run_id: runId }, 'a chat stream lost its run events');
      sse.send({ type: 'error', data: { status: 502, code: 'CHAT_ERR_STREAM_CUT', title: "The run's event stream was cut; reconnect with Last-Event-ID." } });
      return sse.end();
    }
    if (sse.ended()) return; // the client went away: the run's outcome settles the message
    const settlement = await settlementOf(svc.broker, who, runId, segment);
    const latest = async () => (await getMessage(svc.sql, message.id)) ?? message;
    // a reader that joined mid-segment saw only part of it: the whole segment is read again
    const stored = !settlement ? await latest() : after <= (message.start_seq ?? 0) ? ((await settleMessage(svc.sql, message.id, settlement)) ?? message) : await settleFromRun(svc.broker, svc.sql, who, await latest());
    settled = settlement !== undefined;
    sse.send({ type: 'message.end', data: { message_id: stored.id, text: stored.content, status: stored.status, usage: stored.usage ?? { input_tokens: 0, output_tokens: 0 } } });
    sse.end();
  };
  pump()
    .catch((err) => {
      svc.logger.warn({ err, run_id: runId }, 'a chat stream failed');
      sse.end();
    })
    .finally(() => {
      relays.delete(watch);
      if (!relays.size && relaying.get(message.id) === relays) relaying.delete(message.id);
      // the run's outcome was left to this relay, which did not get to settle: settle as it would have
      if (watch.outcomeLeft && !settled) {
        void getMessage(svc.sql, message.id)
          .then((latest) => latest && settleFromRun(svc.broker, svc.sql, who, latest))
          .catch((err: Error) => svc.logger.warn({ err, run_id: runId }, 'could not settle a chat reply whose stream ended early'));
      }
    });
  return sse.stream;
}
