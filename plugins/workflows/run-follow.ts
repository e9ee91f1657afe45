import type { LiveEvent } from './engine/live-events.ts';
import type { WorkflowsService } from './service.ts';

const CATCH_UP_MS = 2_000;
const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** Where a follower writes a run's events (an SSE response, an NDJSON byte stream). */
export interface RunSink {
  send(e: LiveEvent): void;
  end(): void;
  ended(): boolean;
}

export interface FollowOptions {
  /**
   * `always`: end after any `run.paused` (a run-stream); `current`: only after the pause the run
   * still waits in (a replay that reaches an old pause goes on to the events after it); unset:
   * follow until `run.finished`.
   */
  endOnPause?: 'always' | 'current';
  /** told the run's status at the first read (undefined: the entity has no such run) */
  onFirstRead?: (status: string | undefined) => void;
}

/**
 * Follows a run for a sink: replays durable events after `afterSeq` from the database, then
 * forwards live ones (no duplicates, none lost in between: a gap in the ids is filled from the
 * database, which is also read when no live event came for a while, since live events are
 * best-effort across nodes and the last durable ones have no later id to show their gap).
 * Ends the sink after `run.finished` (or a pause, see FollowOptions). Answers the function that
 * stops following; it also runs when the sink ends.
 */
export async function followRun(svc: WorkflowsService, entityId: string, runId: string, afterSeq: number, sink: RunSink, opts: FollowOptions = {}): Promise<() => void> {
  let lastSeq = afterSeq;
  let chain: Promise<void> = Promise.resolve();
  const isCurrentPause = async (seq: number): Promise<boolean> => {
    const run = await svc.runQueries.find(entityId, runId);
    return run?.status === 'paused' && (await svc.runQueries.eventsAfter(runId, seq)).length === 0;
  };
  const write = async (e: LiveEvent) => {
    if (sink.ended()) return;
    if (e.id !== undefined) lastSeq = e.id;
    sink.send(e);
    if (e.type === 'run.finished') sink.end();
    else if (e.type === 'run.paused' && (opts.endOnPause === 'always' || (opts.endOnPause === 'current' && (await isCurrentPause(e.id ?? lastSeq))))) sink.end();
  };
  const replay = async () => {
    for (const r of await svc.runQueries.eventsAfter(runId, lastSeq)) await write({ id: r.seq, type: r.type, data: r.data });
  };
  const deliver = async (events: LiveEvent[]) => {
    for (const e of events) {
      if (sink.ended()) return;
      if (e.id === undefined || e.id === lastSeq + 1) await write(e);
      else if (e.id > lastSeq) for (const r of await svc.runQueries.eventsAfter(runId, lastSeq)) if (r.seq <= e.id) await write({ id: r.seq, type: r.type, data: r.data });
    }
  };
  const enqueue = (step: () => Promise<void>) => {
    chain = chain.then(step).catch(() => sink.end());
  };
  // whether live events came since the last catch-up: a durable event lost meanwhile shows as a
  // gap in the ids of the next one, so the database is read only once the run goes quiet
  let heard = false;
  const unsubscribe = svc.live.subscribe(runId, (events) => {
    heard = true;
    enqueue(() => deliver(events));
  });
  const catchUp = setInterval(() => {
    if (heard) heard = false;
    else enqueue(replay);
  }, CATCH_UP_MS);
  catchUp.unref();
  const stop = () => {
    unsubscribe();
    clearInterval(catchUp);
  };
  enqueue(async () => {
    // the replay and the run's status in one read; a finished run has nothing more to say
    const { status, events } = await svc.runQueries.statusAndEventsAfter(entityId, runId, lastSeq);
    opts.onFirstRead?.(status);
    for (const r of events) await write({ id: r.seq, type: r.type, data: r.data });
    if (status && (ENDED.has(status) || (opts.endOnPause && status === 'paused'))) {
      await replay();
      if (status === 'paused' && opts.endOnPause === 'current' && !(await isCurrentPause(lastSeq))) return;
      sink.end();
    }
  });
  await chain;
  if (sink.ended()) stop();
  return stop;
}
