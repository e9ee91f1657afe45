import type { JobQueue } from '../../../kernel/queue/types.ts';
import { RUN_JOB, runIdOfJob, timerJob, type Engine } from './engine.ts';
import { registerJobHandler } from '../../../kernel/queue/dispatch.ts';
import type { RunStore } from '../store/runs.ts';
import { QUEUED_START, type RunRecovery } from '../store/run-recovery.ts';

/** rows per statement of the recovery at start */
const RECOVERY_PAGE = 500;

/** tries of a run whose drive threw (the database or the process failed, not a step) before it is left to the sweep */
const DRIVE_TRIES = 6;
const DRIVE_RETRY_MS = 500;
const DRIVE_RETRY_MAX_MS = 30_000;

type Logger = { warn(...args: unknown[]): void; info(...args: unknown[]): void };

/**
 * The work-role side: consumes the `work` queue (jobs carry run ids only), renews the leases
 * of the runs this process holds, and sweeps for runs nobody holds (a dead worker's, one whose
 * enqueue never happened, a due timer), re-enqueueing them under a fresh queue id.
 *
 * On start it first recovers from the rows, at once: the queue may have lost every entry (the
 * in-process queue always does on a restart; Redis may have lost its jobs), and the process
 * that held a running run may be this node's previous life. See recover().
 */
export class RunWorker {
  private sweepTimer?: NodeJS.Timeout;
  private stopped = false;
  private unregister?: () => void;
  private unsubscribeReconnect?: () => void;
  /** consecutive throws of a run's drive here, by run id */
  private readonly driveFailures = new Map<string, number>();

  constructor(private readonly deps: { engine: Engine; store: RunStore; recovery: RunRecovery; queue: JobQueue; packagesLoaded: Promise<void>; concurrency: number; sweepSeconds: number; leaseSeconds: number; logger: Logger }) {}

  /** Starts consuming and sweeping; resolves once the recovery at start has put every unfinished run back on the queue. */
  async start(): Promise<void> {
    // runs wait until the node's start-up packages (node types, tools) are loaded
    void this.deps.packagesLoaded.then(() => {
      if (this.stopped) return;
      this.unregister = registerJobHandler(this.deps.queue, 'work', RUN_JOB, this.deps.concurrency, (job) => this.drive(runIdOfJob(job.id)));
    });
    const tick = () => {
      if (this.stopped) return;
      this.sweep()
        .catch((err) => this.deps.logger.warn(`workflow sweep failed: ${(err as Error).message}`))
        .finally(() => {
          if (!this.stopped) this.sweepTimer = setTimeout(tick, this.deps.sweepSeconds * 1000);
        });
    };
    this.sweepTimer = setTimeout(tick, this.deps.sweepSeconds * 1000);
    // a Redis that came back may have lost its jobs (restarted without persistence): rows are the truth
    this.unsubscribeReconnect = this.deps.queue.onReconnect(() => {
      if (this.stopped) return;
      this.recover()
        .then((n) => n.queued + n.taken > 0 && this.deps.logger.info(`queued ${n.queued + n.taken} workflow run(s) again after the queue reconnected`))
        .catch((err) => this.deps.logger.warn(`workflow recovery after the queue reconnected failed: ${(err as Error).message}`));
    });
    try {
      const n = await this.recover();
      if (n.queued > 0) this.deps.logger.info(`queued ${n.queued} pending or timed workflow run(s) again at start`);
    } catch (err) {
      // the periodic sweep still finds them, later
      this.deps.logger.warn(`workflow recovery at start failed: ${(err as Error).message}`);
    }
  }

  /**
   * Drives a run from its queue entry. A drive that throws (the database, not a step: step
   * failures are receipts) has let go of the run (Engine.execute); it is tried again here after
   * a growing pause, and after DRIVE_TRIES the sweep takes it like any run nobody holds.
   */
  private async drive(runId: string): Promise<void> {
    try {
      await this.deps.engine.execute(runId);
      this.driveFailures.delete(runId);
    } catch (err) {
      const tries = (this.driveFailures.get(runId) ?? 0) + 1;
      if (tries >= DRIVE_TRIES || this.stopped) {
        this.driveFailures.delete(runId);
        this.deps.logger.warn(`workflow run ${runId} failed to drive ${tries} times, left to the sweep: ${(err as Error).message}`);
        return;
      }
      this.driveFailures.set(runId, tries);
      const delayMs = Math.min(DRIVE_RETRY_MAX_MS, DRIVE_RETRY_MS * 2 ** (tries - 1));
      this.deps.logger.warn(`workflow run ${runId} failed to drive (try ${tries}), again in ${delayMs} ms: ${(err as Error).message}`);
      await this.deps.queue.enqueue('work', { name: RUN_JOB, id: `${runId}:e${Date.now()}`, delayMs });
    }
  }

  /**
   * Rows are the truth. Takes the runs whose holder is dead for sure (its process presence is
   * gone) or whose lease ran out, and due timers, and re-enqueues them (as the sweep does);
   * then queues every pending run again under its own id and re-arms every timer wait under
   * its own id. Both ids are the ones the queue may still hold, so a queue that kept its
   * entries gets no second one, and several nodes starting together add nothing twice. A
   * duplicate would be harmless anyway: a run is driven only by the worker whose claim
   * (store/runs.ts CLAIM_SQL) took its lease.
   */
  async recover(): Promise<{ taken: number; queued: number }> {
    const { recovery, queue } = this.deps;
    // timers not yet due first, then the due ones: in the other order a timer falling due
    // between the two statements would be in neither
    let queued = 0;
    for (let cursor = QUEUED_START; !this.stopped; ) {
      const rows = await recovery.queuedAfter(cursor, RECOVERY_PAGE);
      for (const r of rows) await queue.enqueue('work', r.status === 'pending' || !r.resume_at ? { name: RUN_JOB, id: r.id } : timerJob(r.id, r.resume_at));
      queued += rows.length;
      if (rows.length < RECOVERY_PAGE) break;
      cursor = rows[rows.length - 1];
    }
    const taken = await this.takeAbandoned();
    return { taken, queued };
  }

  /**
   * Re-enqueues the runs whose holder is dead for sure or whose lease ran out, and due timers.
   * Also run when a node of the cluster leaves or joins (index.ts): a node that left may have
   * died holding runs, and a node that joins may be the restart of one (an api node holding
   * inline webhook runs runs no recovery of its own).
   */
  async takeAbandoned(): Promise<number> {
    const { recovery, queue, leaseSeconds } = this.deps;
    let taken = 0;
    for (let page = RECOVERY_PAGE; page === RECOVERY_PAGE && !this.stopped; ) {
      const rows = await recovery.takeAbandoned(leaseSeconds, RECOVERY_PAGE);
      for (const r of rows) await queue.enqueue('work', { name: RUN_JOB, id: `${r.id}:r${r.recoveries}` });
      taken += rows.length;
      page = rows.length;
    }
    if (taken > 0) this.deps.logger.info(`re-enqueued ${taken} workflow run(s) whose holder is gone`);
    return taken;
  }

  /** One pass of the sweeper; returns how many runs it re-enqueued. */
  async sweep(): Promise<number> {
    const orphans = await this.deps.store.sweep(this.deps.leaseSeconds);
    for (const o of orphans) await this.deps.queue.enqueue('work', { name: RUN_JOB, id: `${o.id}:r${o.recoveries}` });
    if (orphans.length) this.deps.logger.info(`re-enqueued ${orphans.length} workflow run(s) no worker held`);
    return orphans.length;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.sweepTimer);
    this.unregister?.();
    this.unsubscribeReconnect?.();
  }
}

/** Renews the leases of every run this process drives (worker jobs and inline webhook runs). */
export class LeaseKeeper {
  private timer?: NodeJS.Timeout;

  constructor(private readonly store: RunStore, private readonly engine: Pick<Engine, 'owner' | 'activeRunIds'>, private readonly leaseSeconds: number) {}

  start(): void {
    const every = Math.max(250, (this.leaseSeconds * 1000) / 3);
    this.timer = setInterval(() => void this.store.renewLeases(this.engine.owner, this.leaseSeconds, this.engine.activeRunIds()).catch(() => undefined), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
