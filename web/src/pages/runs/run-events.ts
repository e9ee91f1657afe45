import { useEffect, useState } from 'react';
import type { ApiError } from '../../api/problem';
import { followRunEvents, type RunEvent } from './run-stream';

export type { RunEvent } from './run-stream';

/**
 * A run's live events while `enabled`: streaming fetch through the signed-in client (a 401 asks
 * to sign in, then the stream goes on), reconnecting with Last-Event-ID after a cut connection.
 * `error` is a refusal that ended the stream (the run is gone, or not yours).
 */
export function useRunEvents(runId: string, onEvent: (e: RunEvent) => void, enabled: boolean): { connected: boolean; error?: ApiError } {
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState<ApiError>();
  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    setError(undefined);
    void followRunEvents(runId, { signal: controller.signal, onEvent, onConnected: setConnected, onRefused: setError });
    return () => controller.abort();
  }, [runId, enabled, onEvent]);
  return { connected, error };
}
