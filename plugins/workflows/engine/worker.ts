import type { JobQueue } from '../../../kernel/queue/types.ts';
import { RUN_JOB, runIdOfJob, type Engine } from './engine.ts';
import type { RunStore } from '../store/runs.ts';

type Logger = { warn(...args: unknown[]): void; info(...args: unknown[]): void };

type Dispatch = { handle?: (id: string) => Promise<void> };
const DISPATCH = Symbol.for('wao.workflows.work-dispatch');

/**
 * The queue allows one handler per queue and process, registered once; a reloaded package
 * (a fresh module) swaps the target behind it instead of registering again.
 */
function dispatcherOf(queue: JobQueue, concurrency: number): Dispatch {
  const holder = queue as unknown as { [DISPATCH]?: Dispatch };
  if (holder[DISPATCH]) return holder[DISPATCH];
  const dispatch: Dispatch = {};
  holder[DISPATCH] = dispatch;
  queue.process('work', concurrency, async (job) => {
    if (job.name !== RUN_JOB) throw new Error(`the work queue handler of workflows got a job it does not know: '${job.name}'`);
    if (!dispatch.handle) throw new Error('the workflows package is not loaded on this node');
    await dispatch.handle(runIdOfJob(job.id));
  });
  return dispatch;
}

/**
 * The work-role side: consumes the `work` queue (jobs carry run ids only), renews the leases
 * of the runs this process holds, and sweeps for runs nobody holds (a dead worker's, one whose
 * enqueue never happened, a due timer), re-enqueueing them under a fresh queue id.
 */
export class RunWorker {
  private sweepTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly deps: { engine: Engine; store: RunStore; queue: JobQueue; concurrency: number; sweepSeconds: number; leaseSeconds: number; logger: Logger }) {}

  start(): void {
    dispatcherOf(this.deps.queue, this.deps.concurrency).handle = async (id) => {
      await this.deps.engine.execute(id);
    };
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
    const dispatch = (this.deps.queue as unknown as { [DISPATCH]?: Dispatch })[DISPATCH];
    if (dispatch) dispatch.handle = undefined;
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
