import type { Context } from 'moleculer';
import { listExecutors } from '../../../kernel/executors/registry.ts';
import { JOB_RUN_JOB } from '../../../kernel/jobs-contract.ts';
import { claimDue, warmClaim } from '../store/fire.ts';
import type { JobsAction } from '../service.ts';

/**
 * `jobs.fireDue` (internal, the scheduler's): one pass over the due jobs at `now` (default: the
 * service clock), at most `limit` of them: their fires are committed as run rows, then put on
 * the queues. Answers what it fired, with the instant each run was enqueued (fire lag).
 * One transaction and one bulk add per queue for the whole pass: committing and enqueueing in
 * slices of 100-200 got the first runs out sooner but the last ones later (more commits, and
 * the first slices' runs already competing with the later commits on a node that also works).
 */
export const fireDue: JobsAction = {
  visibility: 'public',
  params: { now: { type: 'string', optional: true }, limit: { type: 'number', integer: true, min: 1, max: 10_000, optional: true } },
  async handler(ctx: Context<{ now?: string; limit?: number }>) {
    const now = ctx.params.now ? new Date(ctx.params.now) : this.now();
    const executors = listExecutors(this.broker);
    const limit = ctx.params.limit ?? 1000;
    const t0 = performance.now();
    const { dispatch, claimed } = await claimDue(this.sql, {
      now,
      limit,
      graceMs: this.env.SCHEDULER_TICK_SECONDS * 1000 + 5000,
      lookbackMs: this.env.SCHEDULER_LOOKBACK_HOURS * 3600_000,
      queueOf: (name) => executors.get(name)?.queue ?? 'work',
    });
    const t1 = performance.now();
    // fresh run rows: one bulk add per queue instead of a state check and an add per run. A
    // bulk add is one MULTI/EXEC, so its runs reach the queue at the same instant: each queue's
    // runs answer the instant their own add returned (the fire lag), not the slower queue's.
    const queues = [...new Set(dispatch.map((d) => d.queue))];
    const sent = await Promise.all(
      queues.map(async (queue) => {
        const mine = dispatch.filter((d) => d.queue === queue);
        await this.queue.enqueueNew(queue, mine.map((d) => ({ name: JOB_RUN_JOB, id: d.run_id })));
        const enqueuedAt = new Date().toISOString();
        return mine.map((d) => ({ run_id: d.run_id, job_id: d.job_id, scheduled_for: d.scheduled_for.toISOString(), enqueued_at: enqueuedAt }));
      }),
    );
    const runs = sent.flat();
    return { claimed, more: claimed === limit, runs, claim_ms: Math.round(t1 - t0), enqueue_ms: Math.round(performance.now() - t1) };
  },
};

/**
 * `jobs.prepareFire` (internal, the scheduler's, shortly before a due instant): readies what the
 * pass at that instant needs so its first fires do not wait for it: a pool connection with the
 * pass's statements planned on it (see warmClaim) and the queue's connection (a round trip).
 */
export const prepareFire: JobsAction = {
  visibility: 'public',
  async handler() {
    const t0 = performance.now();
    await Promise.all([warmClaim(this.sql), this.queue.check()]);
    return { prepare_ms: Math.round(performance.now() - t0) };
  },
};

/** `jobs.nextDue` (internal): the earliest next fire of any enabled job, or null. */
export const nextDue: JobsAction = {
  visibility: 'public',
  async handler() {
    const at = await this.jobs.nextDue();
    return { next_run_at: at?.toISOString() ?? null };
  },
};

/** `jobs.recover` (internal, the scheduler's sweeper): see RunWorker.recover. */
export const recover: JobsAction = {
  visibility: 'public',
  async handler() {
    return this.worker.recover({ stuckSeconds: Math.max(30, this.env.JOBS_RUN_LEASE_SECONDS), pollSeconds: this.env.JOBS_POLL_SECONDS });
  },
};
