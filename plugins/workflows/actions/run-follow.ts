import type { Context } from 'moleculer';
import { validate as isUuid } from 'uuid';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { LOCAL_OBJECTS_RULE, objectsFor, openLineStream } from '../../../kernel/ndjson-stream.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { followRun } from '../run-follow.ts';
import { waitForRun } from '../run-launch.ts';
import { runSummary } from '../run-view.ts';
import type { WorkflowsAction } from '../service.ts';

const RUN_ID = { type: 'string', min: 1, max: 64 } as const;

/**
 * `workflows.runEventStream` (internal): a run's events for another package (chat) as an NDJSON
 * byte stream, one `{id?, type, data}` line per event (durable ones with their seq as `id`, live
 * ones such as `agent.text.delta` without), the same replay-then-follow as GET
 * /workflows/runs/{id}/events. After `run.finished`, or the pause the run still waits in
 * (`end_on_pause`, default true), a last line `{"type":"done"}` ends it. Destroying the stream
 * stops following. `local_objects`: the same lines as objects to a caller on this node
 * (kernel/ndjson-stream.ts). 404 for a run of another entity.
 */
export const runEventStream: WorkflowsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    run_id: RUN_ID,
    after: { type: 'number', integer: true, min: 0, default: 0 },
    end_on_pause: { type: 'boolean', default: true },
    local_objects: LOCAL_OBJECTS_RULE,
  },
  async handler(ctx: Context<{ run_id: string; after: number; end_on_pause: boolean; local_objects?: boolean }>) {
    const entityId = entityOf(ctx);
    const runId = ctx.params.run_id;
    const notFound = () => ERRORS.NOT_FOUND(`No workflow run with id '${runId}'.`, { resource: 'workflow_run', id: runId });
    if (!isUuid(runId)) throw notFound();
    const lines = openLineStream(objectsFor(ctx, ctx.params.local_objects));
    const stream = lines.stream;
    let ended = false;
    let stop: (() => void) | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      stop?.();
      lines.end({ type: 'done' });
    };
    stream.on('close', () => {
      ended = true;
      stop?.();
    });
    const sink = { send: (e: object) => void (!ended && lines.write(e)), end, ended: () => ended };
    // the follower's first read also says whether the run is the entity's (no separate lookup)
    let found = true;
    stop = await followRun(this, entityId, runId.toLowerCase(), ctx.params.after, sink, { endOnPause: ctx.params.end_on_pause ? 'current' : undefined, onFirstRead: (status) => (found = status !== undefined) });
    if (!found) {
      stop();
      stream.destroy();
      throw notFound();
    }
    if (ended) stop();
    return stream;
  },
};

/**
 * `workflows.awaitRun` (internal): waits until the run finishes or pauses, or `seconds` pass,
 * and answers it as it stands then (the run summary, with `seq`, its last event's id). 404 for
 * a run of another entity.
 */
export const awaitRun: WorkflowsAction = {
  visibility: 'public',
  params: { $$strict: true, run_id: RUN_ID, seconds: { type: 'number', min: 0, max: 3600 } },
  async handler(ctx: Context<{ run_id: string; seconds: number }>) {
    const entityId = entityOf(ctx);
    const row = await this.runQueries.get(entityId, ctx.params.run_id);
    const current = (await waitForRun(this, entityId, row.id, ctx.params.seconds)) ?? row;
    return { ...runSummary(current), seq: current.seq };
  },
};
