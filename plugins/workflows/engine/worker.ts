import type { JobQueue } from '../../../kernel/queue/types.ts';
import { RUN_JOB, runIdOfJob, type Engine } from './engine.ts';
import { registerJobHandler } from '../../../kernel/queue/dispatch.ts';
import type { RunStore } from '../store/runs.ts';

type Logger = { warn(...args: unknown[]): void; info(...args: unknown[]): void };

/**
 * The work-role side: consumes the `work` queue (jobs carry run ids only), renews the leases
 * of the runs this process holds, and sweeps for runs nobody holds (a dead worker's, one whose
 * enqueue never happened, a due timer), re-enqueueing them under a fresh queue id.
 */
export class RunWorker {
  private sweepTimer?: NodeJS.Timeout;
  private stopped = false;
  private unregister?: () => void;

  constructor(private readonly deps: { engine: Engine; store: RunStore; queue: JobQueue; packagesLoaded: Promise<void>; concurrency: number; sweepSeconds: number; leaseSeconds: number; logger: Logger }) {}

  start(): void {
    // runs wait until the node's start-up packages (node types, tools) are loaded
    void this.deps.packagesLoaded.then(() => {
      if (this.stopped) return;
      this.unregister = registerJobHandler(this.deps.queue, 'work', RUN_JOB, this.deps.concurrency, async (job) => {
        await this.deps.engine.execute(runIdOfJob(job.id));
      });
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
  }
}

/** Renews the leases of every run this process drives (worker jobs and inline webhook runs). */
export class LeaseKeeper {
  private timer?: NodeJS.Timeout;

  constructor(private readonly store: RunStore, private readonly owner: string, private readonly leaseSeconds: number) {}

  start(): void {
    const every = Math.max(250, (this.leaseSeconds * 1000) / 3);
    this.timer = setInterval(() => void this.store.renewLeases(this.owner, this.leaseSeconds).catch(() => undefined), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
