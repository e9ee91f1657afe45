import { setTimeout as sleep } from 'node:timers/promises';
import Bull from 'bull';
import { RedisConnection } from '../kv/redis-connection.ts';
import { deriveRedisUrls } from '../kv/redis-url.ts';
import { InFlightHandlers } from './in-flight.ts';
import { KEEP_FAILED_JOBS, assertConcurrency, assertQueueName, resolveJob } from './job-options.ts';
import { QUEUE_NAMES, type EnqueueJob, type JobHandler, type JobQueue, type QueueCounts, type QueueName } from './types.ts';

/**
 * The bull job id for a row id. Bull keeps a job at `<prefix>:<queue>:<jobId>`
 * next to its own keys (`...:wait`, `...:delayed`, `...:id`), so a bare id
 * such as 'delayed' would collide with them; the 'j:' namespace cannot.
 */
export function toBullJobId(id: string): string {
  return `j:${id}`;
}

export interface BullJobQueueOptions {
  /** Any Redis URL of the deployment; the broker always uses its `/2` database. */
  redisUrl: string;
  /** Key prefix of every bull key (default 'bull'); tests use their own. */
  prefix?: string;
  /** Bound on one connection attempt (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Connection errors and errors of bull's processing loop. */
  onError?: (error: Error) => void;
}

/**
 * JobQueue on bull 4. Connections: one command connection shared by both
 * queues (fails fast while Redis is down), one shared subscriber, and one
 * blocking connection per consuming queue, as bull requires.
 */
export class BullJobQueue implements JobQueue {
  readonly driver = 'bull' as const;
  private readonly commands: RedisConnection;
  private readonly connections: RedisConnection[] = [];
  private readonly queues = new Map<QueueName, Bull.Queue>();
  private readonly consuming = new Set<QueueName>();
  private readonly inFlight = new InFlightHandlers();
  private readonly onError: (error: Error) => void;
  private readonly reconnectListeners = new Set<() => void>();
  private closed = false;

  constructor(opts: BullJobQueueOptions) {
    const url = deriveRedisUrls(opts.redisUrl).jobs;
    this.onError = opts.onError ?? (() => {});
    const connect = (blocking: boolean): RedisConnection => {
      const connection = new RedisConnection(url, { blocking, connectTimeoutMs: opts.connectTimeoutMs, onError: this.onError });
      this.connections.push(connection);
      return connection;
    };
    this.commands = connect(false);
    let connectedBefore = false;
    this.commands.client.on('ready', () => {
      if (connectedBefore && !this.closed) for (const listener of this.reconnectListeners) listener();
      connectedBefore = true;
    });
    let subscriber: RedisConnection | undefined;
    for (const name of QUEUE_NAMES) {
      const queue = new Bull(name, {
        prefix: opts.prefix ?? 'bull',
        createClient: (type) => {
          if (type === 'client') return this.commands.client;
          if (type === 'subscriber') return (subscriber ??= connect(true)).client;
          return connect(true).client;
        },
      });
      // Connection errors reach onError once, from RedisConnection; bull adds a
      // context argument only to the errors of its own processing loop.
      queue.on('error', (error: unknown, context?: string) => {
        if (context) this.onError(new Error(`Queue '${name}': ${context}: ${messageOf(error)}`, { cause: error }));
      });
      this.guardWorkerName(queue);
      this.queues.set(name, queue);
    }
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  async enqueue(queueName: QueueName, job: EnqueueJob): Promise<void> {
    const queue = this.queue(queueName);
    const resolved = resolveJob(queueName, job);
    await this.run(`enqueue '${resolved.name}' on '${queueName}'`, async () => {
      const existing = await queue.getJob(toBullJobId(resolved.id));
      if (existing) {
        // bull ignores an add whose id still exists in any state, so a failed
        // job must be removed before its id can run again.
        const state = await existing.getState();
        if (state !== 'failed' && state !== 'completed') return;
        await existing.remove().catch(() => undefined);
      }
      await queue.add(resolved.name, { id: resolved.id }, {
        jobId: toBullJobId(resolved.id),
        delay: resolved.delayMs,
        attempts: resolved.attempts,
        ...(resolved.backoffMs > 0 ? { backoff: { type: 'fixed', delay: resolved.backoffMs } } : {}),
        removeOnComplete: true,
        removeOnFail: KEEP_FAILED_JOBS,
      });
    });
  }

  async enqueueNew(queueName: QueueName, jobs: EnqueueJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const queue = this.queue(queueName);
    const resolved = jobs.map((job) => resolveJob(queueName, job));
    await this.run(`enqueue ${resolved.length} new jobs on '${queueName}'`, () =>
      queue.addBulk(
        resolved.map((job) => ({
          name: job.name,
          data: { id: job.id },
          opts: {
            jobId: toBullJobId(job.id),
            delay: job.delayMs,
            attempts: job.attempts,
            ...(job.backoffMs > 0 ? { backoff: { type: 'fixed', delay: job.backoffMs } } : {}),
            removeOnComplete: true,
            removeOnFail: KEEP_FAILED_JOBS,
          },
        })),
      ),
    );
  }

  process(queueName: QueueName, concurrency: number, handler: JobHandler): void {
    const queue = this.queue(queueName);
    assertConcurrency(queueName, concurrency);
    if (this.consuming.has(queueName)) throw new Error(`Queue '${queueName}' already has a handler in this process`);
    this.consuming.add(queueName);
    const started = queue.process('*', concurrency, (job) =>
      this.inFlight.track(() => handler({ name: job.name, id: (job.data as { id: string }).id, attempt: job.attemptsMade + 1 })),
    );
    // Resolves only when the queue closes; a rejection before close means the loop died.
    started.catch((error: unknown) => {
      if (!this.closed) this.onError(new Error(`Queue '${queueName}' stopped processing: ${messageOf(error)}`, { cause: error }));
    });
  }

  async pause(queueName: QueueName): Promise<void> {
    const queue = this.queue(queueName);
    await this.run(`pause '${queueName}'`, () => queue.pause(true, true));
  }

  async counts(queueName: QueueName): Promise<QueueCounts> {
    const queue = this.queue(queueName);
    const counts = await this.run(`count jobs on '${queueName}'`, () => queue.getJobCounts());
    const paused = (counts as { paused?: number }).paused ?? 0;
    return { waiting: counts.waiting + paused, active: counts.active, delayed: counts.delayed, failed: counts.failed };
  }

  async drain(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const pausing = Promise.allSettled([...this.consuming].map((name) => this.queues.get(name)!.pause(true, true)));
    await Promise.race([pausing, sleep(timeoutMs, undefined, { ref: false })]);
    await this.inFlight.waitIdle(Math.max(0, deadline - Date.now()));
  }

  async check(): Promise<void> {
    this.assertOpen();
    await this.commands.run('PING', (redis) => redis.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // doNotWaitJobs: a graceful stop drains first; jobs still running here
    // lose their lock and bull's stalled check hands them to another worker.
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.close(true)));
    await Promise.allSettled(this.connections.map((connection) => connection.close()));
  }

  /**
   * bull's process() fires setWorkerName() (CLIENT SETNAME on the blocking
   * connection) without handling its promise, so a queue closed before that
   * command runs would leave an unhandled rejection behind.
   */
  private guardWorkerName(queue: Bull.Queue): void {
    const setWorkerName = queue.setWorkerName.bind(queue);
    queue.setWorkerName = () =>
      setWorkerName().catch((error: unknown) => {
        if (!this.closed) this.onError(new Error(`Queue '${queue.name}': naming the worker connection failed`, { cause: error }));
      });
  }

  private queue(name: QueueName): Bull.Queue {
    assertQueueName(name);
    this.assertOpen();
    return this.queues.get(name)!;
  }

  private async run<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.commands.failure(operation, error);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('Job queue (bull) is closed');
  }
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? 'connection ended' : String(error);
}
