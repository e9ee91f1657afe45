import { QUEUE_NAMES, type EnqueueJob, type QueueName } from './types.ts';

export interface ResolvedJob {
  name: string;
  id: string;
  delayMs: number;
  attempts: number;
  backoffMs: number;
}

/** Failed jobs kept for inspection per queue; older ones are dropped so storage stays bounded. */
export const KEEP_FAILED_JOBS = 1000;

export function assertQueueName(queue: string): asserts queue is QueueName {
  if (!(QUEUE_NAMES as readonly string[]).includes(queue)) {
    throw new Error(`Unknown queue '${queue}': expected one of ${QUEUE_NAMES.join(', ')}`);
  }
}

export function assertConcurrency(queue: QueueName, concurrency: number): void {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new Error(`Concurrency for queue '${queue}' must be a positive integer, got ${concurrency}`);
  }
}

/** Validates an enqueue request and fills in the defaults (no delay, one attempt, no backoff). */
export function resolveJob(queue: QueueName, job: EnqueueJob): ResolvedJob {
  const where = `job '${job.name}' on queue '${queue}'`;
  if (typeof job.name !== 'string' || job.name === '') throw new Error(`A job on queue '${queue}' needs a non-empty name`);
  if (typeof job.id !== 'string' || job.id === '') throw new Error(`${where} needs a non-empty id`);
  const delayMs = job.delayMs ?? 0;
  const attempts = job.attempts ?? 1;
  const backoffMs = job.backoffMs ?? 0;
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new Error(`${where}: delayMs must be >= 0, got ${delayMs}`);
  if (!Number.isInteger(attempts) || attempts < 1) throw new Error(`${where}: attempts must be a positive integer, got ${attempts}`);
  if (!Number.isFinite(backoffMs) || backoffMs < 0) throw new Error(`${where}: backoffMs must be >= 0, got ${backoffMs}`);
  return { name: job.name, id: job.id, delayMs: Math.ceil(delayMs), attempts, backoffMs: Math.ceil(backoffMs) };
}
