import { BullJobQueue } from './bull.ts';
import { MemoryJobQueue } from './memory.ts';
import type { JobQueue } from './types.ts';

export type { EnqueueJob, JobHandler, JobQueue, QueueCounts, QueueName, QueuedJob } from './types.ts';
export { QUEUE_NAMES } from './types.ts';
export { BullJobQueue } from './bull.ts';
export { MemoryJobQueue } from './memory.ts';

export interface CreateJobQueueOptions {
  /** The deployment's Redis URL (bull uses its `/2` database); none -> in-process queue. */
  redisUrl?: string;
  /** bull key prefix (default 'bull'). */
  prefix?: string;
  connectTimeoutMs?: number;
  onError?: (error: Error) => void;
}

export function createJobQueue(opts: CreateJobQueueOptions = {}): JobQueue {
  if (!opts.redisUrl) return new MemoryJobQueue();
  return new BullJobQueue({
    redisUrl: opts.redisUrl,
    prefix: opts.prefix,
    connectTimeoutMs: opts.connectTimeoutMs,
    onError: opts.onError,
  });
}
