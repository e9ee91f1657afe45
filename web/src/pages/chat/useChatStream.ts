import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api/problem';
import { useAnnounce } from '../../ui/announcer';
import { announcementFor, initialStream, streamReducer, type StreamAction, type StreamState } from './chat-stream';
import { followRun, openChatStream, type ChatSend } from './chat-transport';
import { readSse } from './sse';

/** Reconnects after a cut connection, each after a longer pause. */
const RECONNECTS = 3;

export interface ChatStream {
  state: StreamState;
  /** resolves true once the reply started (message.start), false if the message was refused or never got through */
  send(fields: ChatSend): Promise<boolean>;
  /** follows a run from an event id on (after an approval was decided) */
  follow(runId: string, lastEventId: number, conversationId: string): void;
  stop(): void;
  reset(): void;
}

/**
 * One reply streaming at a time: POST /chat/stream read with streaming fetch (the session
 * cookie signs it in, as every call), a cut connection resumed from the last durable frame
 * with GET /chat/runs/{run_id}/events, the stop button aborting the request (the server then
 * interrupts the run and keeps the partial answer). Status changes are announced.
 */
export function useChatStream(handlers: { onStarted?(conversationId: string): void; onSettled?(state: StreamState): void }): ChatStream {
  const ref = useRef<StreamState>(initialStream);
  const [state, setState] = useState<StreamState>(initialStream);
  const controller = useRef<AbortController | undefined>(undefined);
  const started = useRef<((ok: boolean) => void) | undefined>(undefined);
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  const announce = useAnnounce();

  const settleStart = (ok: boolean) => {
    started.current?.(ok);
    started.current = undefined;
  };

  const apply = useCallback(
    (action: StreamAction) => {
      const prev = ref.current;
      const next = streamReducer(prev, action);
      ref.current = next;
      setState(next);
      const said = announcementFor(prev.status, next.status, next);
      if (said) announce(said);
      if (!prev.conversationId && next.conversationId) handlersRef.current.onStarted?.(next.conversationId);
      if (action.type === 'frame' && action.event.event === 'message.start') settleStart(true);
      if (action.type === 'refused' || action.type === 'stopped' || action.type === 'reset') settleStart(false);
    },
    [announce],
  );

  const pump = useCallback(
    async (open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>, ctrl: AbortController) => {
      let opener = open;
      for (let attempt = 0; ; attempt++) {
        let ended = false;
        try {
          const body = await opener(ctrl.signal);
          await readSse(body, (event) => {
            if (ctrl.signal.aborted) return;
            apply({ type: 'frame', event });
            if (event.event === 'message.end') ended = true;
          });
        } catch (err) {
          if (ctrl.signal.aborted) break;
          if (err instanceof ApiError && !err.network) {
            apply({ type: 'refused', error: err });
            break;
          }
        }
        if (ended || ctrl.signal.aborted) break;
        const { runId, lastEventId } = ref.current;
        if (!runId || attempt >= RECONNECTS) {
          apply({ type: 'refused', error: ApiError.network(new Error('the reply stream was cut and could not be resumed')) });
          break;
        }
        apply({ type: 'reconnecting' });
        await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
        if (ctrl.signal.aborted) break;
        opener = (signal) => followRun(runId, lastEventId, signal);
      }
      if (controller.current === ctrl) {
        controller.current = undefined;
        settleStart(false);
      }
      handlersRef.current.onSettled?.(ref.current);
    },
    [apply],
  );

  const start = useCallback(
    (conversationId: string | undefined, open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>) => {
      controller.current?.abort();
      const ctrl = new AbortController();
      controller.current = ctrl;
      apply({ type: 'begin', conversationId });
      void pump(open, ctrl);
    },
    [apply, pump],
  );

  const send = useCallback(
    (fields: ChatSend) =>
      new Promise<boolean>((resolve) => {
        settleStart(false);
        started.current = resolve;
        start(fields.conversation_id, (signal) => openChatStream(fields, signal));
      }),
    [start],
  );
  const follow = useCallback((runId: string, lastEventId: number, conversationId: string) => start(conversationId, (signal) => followRun(runId, lastEventId, signal)), [start]);
  const stop = useCallback(() => {
    controller.current?.abort();
    apply({ type: 'stopped' });
  }, [apply]);
  const reset = useCallback(() => {
    controller.current?.abort();
    apply({ type: 'reset' });
  }, [apply]);

  // leaving the page closes the stream (the run goes on only if the server decides so)
  useEffect(() => () => controller.current?.abort(), []);
  return { state, send, follow, stop, reset };
}
