import { InFlightHandlers } from './in-flight.ts';
import { KEEP_FAILED_JOBS, assertConcurrency, assertQueueName, resolveJob, type ResolvedJob } from './job-options.ts';
import { QUEUE_NAMES, type EnqueueJob, type JobHandler, type JobQueue, type QueueCounts, type QueueName } from './types.ts';

interface MemoryJob extends ResolvedJob {
  attemptsMade: number;
}

interface QueueState {
  waiting: MemoryJob[];
  delayed: Map<string, { job: MemoryJob; timer: NodeJS.Timeout }>;
  active: Set<string>;
  /** Ids whose last try failed, oldest first, capped at KEEP_FAILED_JOBS. */
  failed: Set<string>;
  worker: { concurrency: number; handler: JobHandler } | null;
  paused: boolean;
}

/**
 * In-process JobQueue for the embedded single-process setup: nothing survives
 * a restart, which is fine because the rows in Postgres are the durable state
 * and a sweeper re-enqueues unfinished ones.
 */
export class MemoryJobQueue implements JobQueue {
  readonly driver = 'memory' as const;
  private readonly queues = new Map<QueueName, QueueState>(QUEUE_NAMES.map((name) => [name, emptyState()]));
  private readonly inFlight = new InFlightHandlers();
  private draining = false;
  private closed = false;

  async enqueue(queue: QueueName, job: EnqueueJob): Promise<void> {
    const state = this.state(queue);
    const resolved = resolveJob(queue, job);
    this.assertOpen();
    if (isPending(state, resolved.id)) return;
    state.failed.delete(resolved.id);
    this.schedule(state, { ...resolved, attemptsMade: 0 }, resolved.delayMs);
  }

  async enqueueNew(queue: QueueName, jobs: EnqueueJob[]): Promise<void> {
    for (const job of jobs) await this.enqueue(queue, job);
  }

  process(queue: QueueName, concurrency: number, handler: JobHandler): void {
    const state = this.state(queue);
    assertConcurrency(queue, concurrency);
    this.assertOpen();
    if (state.worker) throw new Error(`Queue '${queue}' already has a handler in this process`);
    state.worker = { concurrency, handler };
    this.pump(state);
  }

  async pause(queue: QueueName): Promise<void> {
    this.state(queue).paused = true;
  }

  async counts(queue: QueueName): Promise<QueueCounts> {
    const state = this.state(queue);
    return { waiting: state.waiting.length, active: state.active.size, delayed: state.delayed.size, failed: state.failed.size };
  }

  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    await this.inFlight.waitIdle(timeoutMs);
  }

  async check(): Promise<void> {
    this.assertOpen();
  }

  /** In process: no connection to lose. */
  onReconnect(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    this.draining = true;
    this.closed = true;
    for (const state of this.queues.values()) {
      for (const { timer } of state.delayed.values()) clearTimeout(timer);
      state.delayed.clear();
      state.waiting.length = 0;
    }
  }

  /** Puts a job in waiting now, or in delayed until its timer moves it there. */
  private schedule(state: QueueState, job: MemoryJob, delayMs: number): void {
    if (delayMs <= 0) {
      state.waiting.push(job);
      this.pump(state);
      return;
    }
    const timer = setTimeout(() => {
      state.delayed.delete(job.id);
      state.waiting.push(job);
      this.pump(state);
    }, delayMs);
    timer.unref();
    state.delayed.set(job.id, { job, timer });
  }

  private pump(state: QueueState): void {
    const worker = state.worker;
    if (!worker || state.paused || this.draining) return;
    while (state.active.size < worker.concurrency && state.waiting.length > 0) {
      this.run(state, worker.handler, state.waiting.shift()!);
    }
  }

  private run(state: QueueState, handler: JobHandler, job: MemoryJob): void {
    job.attemptsMade += 1;
    state.active.add(job.id);
    const attempt = job.attemptsMade;
    void this.inFlight
      .track(() => handler({ name: job.name, id: job.id, attempt }))
      .then(
        () => state.active.delete(job.id),
        () => {
          state.active.delete(job.id);
          if (this.closed) return;
          if (attempt < job.attempts) this.schedule(state, job, job.backoffMs);
          else recordFailure(state, job.id);
        },
      )
      .finally(() => this.pump(state));
  }

  private state(queue: QueueName): QueueState {
    assertQueueName(queue);
    return this.queues.get(queue)!;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('Job queue (memory) is closed');
  }
}

function emptyState(): QueueState {
  return { waiting: [], delayed: new Map(), active: new Set(), failed: new Set(), worker: null, paused: false };
}

function isPending(state: QueueState, id: string): boolean {
  return state.active.has(id) || state.delayed.has(id) || state.waiting.some((job) => job.id === id);
}

function recordFailure(state: QueueState, id: string): void {
  state.failed.delete(id);
  state.failed.add(id);
  if (state.failed.size > KEEP_FAILED_JOBS) state.failed.delete(state.failed.values().next().value!);
}
