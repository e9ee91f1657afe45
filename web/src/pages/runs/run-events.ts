import { useEffect, useState } from 'react';

export interface RunEvent {
  id?: string;
  type: string;
  data: Record<string, unknown>;
}

const TYPES = ['run.created', 'run.started', 'run.resumed', 'run.paused', 'run.finished', 'step.started', 'step.finished', 'step.skipped'];

/**
 * A run's live events over SSE. The browser's EventSource sends the session cookie (same
 * origin) and reconnects by itself with Last-Event-ID, so nothing is missed or repeated.
 */
export function useRunEvents(runId: string, onEvent: (e: RunEvent) => void, enabled: boolean): { connected: boolean } {
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    if (!enabled) return;
    const source = new EventSource(`/api/v1/workflows/runs/${encodeURIComponent(runId)}/events`);
    source.onopen = () => setConnected(true);
    source.onerror = () => setConnected(false);
    const handle = (type: string) => (m: MessageEvent<string>) => {
      let data: Record<string, unknown> = {};
      try {
        data = JSON.parse(m.data) as Record<string, unknown>;
      } catch {
        /* a frame that is not JSON carries nothing for us */
      }
      onEvent({ id: m.lastEventId || undefined, type, data });
      if (type === 'run.finished') source.close();
    };
    for (const t of TYPES) source.addEventListener(t, handle(t) as EventListener);
    return () => source.close();
  }, [runId, enabled, onEvent]);
  return { connected };
}
