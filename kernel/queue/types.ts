/** `celery`: control-plane worker (default concurrency 2); `work`: work worker (default 4). */
export type QueueName = 'celery' | 'work';

export const QUEUE_NAMES: readonly QueueName[] = ['celery', 'work'];

export interface EnqueueJob {
  /** What to do, e.g. 'run.step'; handlers dispatch on it. */
  name: string;
  /** Id of the committed Postgres row the job is about; also the queue's dedup key. */
  id: string;
  /** Run no earlier than this many ms from now. */
  delayMs?: number;
  /** Total tries including the first (default 1: no retry). */
  attempts?: number;
  /** Wait between a failed try and the next one (default 0). */
  backoffMs?: number;
}

export interface QueuedJob {
  name: string;
  id: string;
  /** 1 on the first try, 2 on the first retry, ... */
  attempt: number;
}

export type JobHandler = (job: QueuedJob) => Promise<void>;

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  /** Jobs whose last try failed (the most recent ones are kept). */
  failed: number;
}

/**
 * Moves ids, not state: durable state lives in Postgres rows, and a job is
 * enqueued only after its row commits. Both drivers pass
 * test/helpers/queue-contract.ts.
 */
export interface JobQueue {
  readonly driver: 'bull' | 'memory';
  /** Idempotent per (queue, id): an id already waiting, delayed or active is left alone; a failed or finished one runs again. */
  enqueue(queue: QueueName, job: EnqueueJob): Promise<void>;
  /**
   * Many jobs in one round trip, for ids that were never enqueued before (rows just committed,
   * such as a scheduler's fires): no per-id state check, so an id still queued is not guarded.
   */
  enqueueNew(queue: QueueName, jobs: EnqueueJob[]): Promise<void>;
  /** Starts consuming a queue in this process; one handler per queue. A thrown error counts as a failed try. */
  process(queue: QueueName, concurrency: number, handler: JobHandler): void;
  /** Stops this process taking new jobs from the queue (running ones finish; other processes are not affected). */
  pause(queue: QueueName): Promise<void>;
  counts(queue: QueueName): Promise<QueueCounts>;
  /** Stops taking new jobs on every queue and waits up to timeoutMs for running handlers. */
  drain(timeoutMs: number): Promise<void>;
  /** Rejects when the broker is unreachable (readiness probe). */
  check(): Promise<void>;
  /**
   * Calls `listener` each time the broker is reachable again after a lost connection: it may
   * have lost its jobs meanwhile (a Redis restarted without persistence), so owners of durable
   * rows queue theirs again. Returns the unsubscribe. The in-process queue never calls it.
   */
  onReconnect(listener: () => void): () => void;
  /** Releases connections and timers; call drain first for a graceful stop. */
  close(): Promise<void>;
}
