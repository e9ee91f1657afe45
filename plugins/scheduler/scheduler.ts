import type { ServiceBroker } from 'moleculer';
import { JOBS_FIRE_DUE_ACTION, JOBS_NEXT_DUE_ACTION, JOBS_RECOVER_ACTION } from '../../kernel/jobs-contract.ts';

export type Logger = { warn(...args: unknown[]): void; info(...args: unknown[]): void; debug(...args: unknown[]): void };

export interface SchedulerOptions {
  broker: ServiceBroker;
  tickSeconds: number;
  sweepSeconds: number;
  logger: Logger;
  /** due jobs taken per pass */
  batch?: number;
}

interface FireAnswer {
  claimed: number;
  /** time spent committing the fires, and putting them on the queues */
  claim_ms: number;
  enqueue_ms: number;
  more: boolean;
  runs: { run_id: string; scheduled_for: string; enqueued_at: string }[];
}

/**
 * Fires due jobs: one timer set for the earliest next fire of any enabled job (moved earlier
 * when a job changes, `jobsChanged`), capped at the tick, so a job fires within a second of its
 * instant and the tick is only the safety net. Each pass asks `jobs.fireDue`, which commits the
 * fires (exactly once across control nodes) and queues them. Every few seconds the sweeper
 * recovers runs (`jobs.recover`). Passes never overlap in one process.
 */
export class Scheduler {
  private timer?: NodeJS.Timeout;
  private armedFor = Infinity;
  private sweepTimer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  /** what the last passes fired (for the bench and the tests) */
  readonly fired: FireAnswer['runs'][] = [];
  readonly passes: Pick<FireAnswer, 'claimed' | 'claim_ms' | 'enqueue_ms'>[] = [];

  constructor(private readonly opts: SchedulerOptions) {}

  start(): void {
    void this.pass();
    const sweep = () => {
      if (this.stopped) return;
      this.sweep()
        .catch((err) => this.opts.logger.warn(`job run recovery failed: ${(err as Error).message}`))
        .finally(() => {
          if (!this.stopped) this.sweepTimer = setTimeout(sweep, this.opts.sweepSeconds * 1000);
        });
    };
    this.sweepTimer = setTimeout(sweep, this.opts.sweepSeconds * 1000);
  }

  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.sweepTimer);
    return this.running ?? Promise.resolve();
  }

  /** A job changed somewhere: fire sooner when its next fire comes before the armed one. */
  jobsChanged(nextRunAt: string | null): void {
    if (!nextRunAt || this.stopped) return;
    const at = Date.parse(nextRunAt);
    if (at < this.armedFor) this.arm(at);
  }

  /** One pass now (the timer's, the tick's; tests call it). Resolves when it and any pass it asked for are done. */
  pass(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.fireAll().catch((err) => this.opts.logger.warn(`scheduler pass failed: ${(err as Error).message}`));
      } while (this.again && !this.stopped);
      await this.rearm().catch((err) => {
        this.opts.logger.warn(`scheduler could not read the next due time: ${(err as Error).message}`);
        this.arm(Date.now() + this.opts.tickSeconds * 1000);
      });
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async sweep(): Promise<unknown> {
    return this.opts.broker.call(JOBS_RECOVER_ACTION, {});
  }

  private async fireAll(): Promise<void> {
    let more = true;
    while (more && !this.stopped) {
      const answer = await this.opts.broker.call<FireAnswer, { limit: number }>(JOBS_FIRE_DUE_ACTION, { limit: this.opts.batch ?? 1000 });
      if (answer.runs.length) {
        this.fired.push(answer.runs);
        this.passes.push({ claimed: answer.claimed, claim_ms: answer.claim_ms, enqueue_ms: answer.enqueue_ms });
        if (this.fired.length > 100) this.fired.shift();
        if (this.passes.length > 100) this.passes.shift();
        this.opts.logger.debug(`fired ${answer.runs.length} job run(s)`);
      }
      more = answer.more;
    }
  }

  private async rearm(): Promise<void> {
    const { next_run_at } = await this.opts.broker.call<{ next_run_at: string | null }, Record<string, never>>(JOBS_NEXT_DUE_ACTION, {});
    const tick = Date.now() + this.opts.tickSeconds * 1000;
    this.arm(next_run_at ? Math.min(Date.parse(next_run_at), tick) : tick);
  }

  private arm(at: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = setTimeout(() => {
      this.armedFor = Infinity;
      void this.pass();
    }, Math.max(0, at - Date.now()));
  }
}
