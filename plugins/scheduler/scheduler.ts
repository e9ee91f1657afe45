import type { ServiceBroker } from 'moleculer';
import { JOBS_FIRE_DUE_ACTION, JOBS_NEXT_DUE_ACTION, JOBS_PREPARE_FIRE_ACTION, JOBS_RECOVER_ACTION } from '../../kernel/jobs-contract.ts';

export type Logger = { warn(...args: unknown[]): void; info(...args: unknown[]): void; debug(...args: unknown[]): void };

/** Time and timers (the real ones by default; tests pass a controllable clock). */
export interface SchedulerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_CLOCK: SchedulerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface SchedulerOptions {
  broker: Pick<ServiceBroker, 'call'>;
  tickSeconds: number;
  sweepSeconds: number;
  logger: Logger;
  /** due jobs taken per pass */
  batch?: number;
  /**
   * How long before a due instant the scheduler asks `jobs.prepareFire` to ready that pass (a
   * warm pool connection with the pass's statements planned, the queue connection); 0: never.
   * The plugin uses PREPARE_LEAD_MS.
   */
  prepareLeadMs?: number;
  clock?: SchedulerClock;
}

interface FireAnswer {
  claimed: number;
  /** time spent committing the fires, and putting them on the queues */
  claim_ms: number;
  enqueue_ms: number;
  more: boolean;
  runs: { run_id: string; scheduled_for: string; enqueued_at: string }[];
}

/** The lead the plugin gives prepareLeadMs: well inside the pool's 10 s idle limit, well over a prepare's time. */
export const PREPARE_LEAD_MS = 1000;

/**
 * Fires due jobs: one timer set for the earliest next fire of any enabled job (moved earlier
 * when a job changes, `jobsChanged`), capped at the tick, so a job fires within a second of its
 * instant and the tick is only the safety net. Each pass asks `jobs.fireDue`, which commits the
 * fires (exactly once across control nodes) and queues them. Every few seconds the sweeper
 * recovers runs (`jobs.recover`). Passes never overlap in one process. A timer armed for a due
 * instant further away than `prepareLeadMs` comes with a second one at that lead before it, which
 * readies the pass (`jobs.prepareFire`): after a quiet minute the pool's connections are closed,
 * and the burst would first wait for a new one and a server backend that plans cold.
 */
export class Scheduler {
  private timer?: unknown;
  private prepareTimer?: unknown;
  /** when the pending timer fires; Infinity when none is pending */
  private armedFor = Infinity;
  private readonly clock: SchedulerClock;
  private sweepTimer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  /** what the last passes fired (for the bench and the tests) */
  readonly fired: FireAnswer['runs'][] = [];
  readonly passes: Pick<FireAnswer, 'claimed' | 'claim_ms' | 'enqueue_ms'>[] = [];

  constructor(private readonly opts: SchedulerOptions) {
    this.clock = opts.clock ?? REAL_CLOCK;
  }

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
    this.clock.clearTimeout(this.timer);
    this.clock.clearTimeout(this.prepareTimer);
    clearTimeout(this.sweepTimer);
    return this.running ?? Promise.resolve();
  }

  /** A job changed somewhere: fire sooner when its next fire comes before the armed one. */
  jobsChanged(nextRunAt: string | null): void {
    if (!nextRunAt || this.stopped) return;
    this.armNoLaterThan(Date.parse(nextRunAt), true);
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
        this.armNoLaterThan(this.clock.now() + this.opts.tickSeconds * 1000);
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

  /**
   * After a pass: the timer goes to the earliest next fire (capped by the tick), unless one is
   * pending for an earlier instant. `jobsChanged` may have armed that while this pass ran, for a
   * job committed after the next-due read began; replacing it would leave that fire to the tick.
   */
  private async rearm(): Promise<void> {
    const { next_run_at } = await this.opts.broker.call<{ next_run_at: string | null }, Record<string, never>>(JOBS_NEXT_DUE_ACTION, {});
    const tick = this.clock.now() + this.opts.tickSeconds * 1000;
    const due = next_run_at ? Date.parse(next_run_at) : Infinity;
    this.armNoLaterThan(Math.min(due, tick), due <= tick);
  }

  /** Readies the pass at a due instant; a failure only costs that pass its warm start. */
  private prepare(): void {
    this.opts.broker.call(JOBS_PREPARE_FIRE_ACTION, {}).catch((err: Error) => this.opts.logger.debug(`scheduler could not prepare the next pass: ${err.message}`));
  }

  /**
   * Arms the timer for `at`, keeping a pending one that fires earlier (or at the same time). For
   * a due instant (`due`, not the tick) far enough away, the prepare timer goes `prepareLeadMs` before it.
   */
  private armNoLaterThan(at: number, due = false): void {
    if (this.stopped || this.armedFor <= at) return;
    this.clock.clearTimeout(this.timer);
    this.clock.clearTimeout(this.prepareTimer);
    this.prepareTimer = undefined;
    this.armedFor = at;
    const wait = Math.max(0, at - this.clock.now());
    this.timer = this.clock.setTimeout(() => {
      this.armedFor = Infinity;
      void this.pass();
    }, wait);
    const lead = this.opts.prepareLeadMs ?? 0;
    if (due && lead > 0 && wait > lead) {
      this.prepareTimer = this.clock.setTimeout(() => {
        this.prepareTimer = undefined;
        this.prepare();
      }, wait - lead);
    }
  }
}
