import { PassThrough } from 'node:stream';
import type { Context } from 'moleculer';
import type { LiveEvent } from './engine/live-events.ts';
import type { WorkflowsService } from './service.ts';

/**
 * The SSE events of a run stream (documented in the README):
 *   run.created, run.started, run.resumed, step.started, step.finished, step.skipped,
 *   run.paused, run.finished
 * Each durable event carries `id: <seq>`; reconnect with `Last-Event-ID: <seq>` (or
 * `?last_event_id=`) to get every event after it. `step.started` of a step that commits no
 * marker is sent live without an id and repeated with its id when its receipt commits.
 * The stream ends after `run.finished` (or `run.paused` for a run-stream).
 */
function frame(e: LiveEvent): string {
  return `${e.id !== undefined ? `id: ${e.id}\n` : ''}event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

const HEARTBEAT_MS = 15_000;
const CATCH_UP_MS = 2_000;

export function lastEventIdOf(params: { $req?: { headers: Record<string, string | string[] | undefined> }; last_event_id?: number }): number {
  const header = params.$req?.headers['last-event-id'];
  const value = Number(Array.isArray(header) ? header[0] : (header ?? params.last_event_id ?? 0));
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * Opens a run's event stream as the action's response: replays durable events after
 * `afterSeq` from the database, then forwards live ones (no duplicates, none lost in between).
 */
export async function openRunStream(svc: WorkflowsService, ctx: Context, runId: string, afterSeq: number, opts: { endOnPause?: boolean } = {}): Promise<PassThrough> {
  const meta = ctx.meta as Record<string, unknown>;
  meta.$responseType = 'text/event-stream; charset=utf-8';
  meta.$responseHeaders = { 'X-Accel-Buffering': 'no', Connection: 'keep-alive' };
  const stream = new PassThrough();
  let lastSeq = afterSeq;
  let ended = false;
  let chain: Promise<void> = Promise.resolve();
  const finish = () => {
    if (ended) return;
    ended = true;
    unsubscribe();
    clearInterval(heartbeat);
    clearInterval(catchUp);
    stream.end();
  };
  const write = (e: LiveEvent) => {
    if (ended) return;
    if (e.id !== undefined) lastSeq = e.id;
    stream.write(frame(e));
    if (e.type === 'run.finished' || (opts.endOnPause && e.type === 'run.paused')) finish();
  };
  /** durable events go out in seq order: a gap (events that reached this node late, or were never broadcast) is filled from the database */
  const deliver = async (events: LiveEvent[]) => {
    for (const e of events) {
      if (ended) return;
      if (e.id === undefined) write(e);
      else if (e.id === lastSeq + 1) write(e);
      else if (e.id > lastSeq) for (const r of await svc.runQueries.eventsAfter(runId, lastSeq)) if (r.seq <= e.id) write({ id: r.seq, type: r.type, data: r.data });
    }
  };
  const enqueue = (events: LiveEvent[]) => {
    chain = chain.then(() => deliver(events)).catch(() => finish());
  };
  const unsubscribe = svc.live.subscribe(runId, enqueue);
  const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  // live events are best-effort across nodes: the database is read now and then, too
  const catchUp = setInterval(() => {
    chain = chain.then(async () => {
      for (const r of await svc.runQueries.eventsAfter(runId, lastSeq)) write({ id: r.seq, type: r.type, data: r.data });
    }).catch(() => finish());
  }, CATCH_UP_MS);
  catchUp.unref();
  stream.on('close', finish);
  stream.on('error', finish);
  stream.write(': run events\n\n');
  chain = chain.then(async () => {
    for (const r of await svc.runQueries.eventsAfter(runId, afterSeq)) write({ id: r.seq, type: r.type, data: r.data });
    // a finished run has nothing more to say
    const run = await svc.runQueries.find((ctx.meta as { user?: { entity_id: string } }).user?.entity_id ?? '', runId);
    if (run && (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled' || (opts.endOnPause && run.status === 'paused'))) {
      for (const r of await svc.runQueries.eventsAfter(runId, lastSeq)) write({ id: r.seq, type: r.type, data: r.data });
      finish();
    }
  });
  await chain;
  return stream;
}
