import type { Readable } from 'node:stream';
import type { Context } from 'moleculer';
import { followRun } from './run-follow.ts';
import { openSse } from '../../kernel/sse.ts';
import type { WorkflowsService } from './service.ts';

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
export async function openRunStream(svc: WorkflowsService, ctx: Context, runId: string, afterSeq: number, opts: { endOnPause?: boolean } = {}): Promise<Readable> {
  let stop: (() => void) | undefined;
  const sse = openSse(ctx, 'run events', { onEnd: () => stop?.() });
  const entityId = (ctx.meta as { user?: { entity_id: string } }).user?.entity_id ?? '';
  stop = await followRun(svc, entityId, runId, afterSeq, sse, { endOnPause: opts.endOnPause ? 'always' : undefined });
  if (sse.ended()) stop();
  return sse.stream;
}
