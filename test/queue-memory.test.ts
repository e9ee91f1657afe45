import test from 'ava';
import { createJobQueue } from '../kernel/queue/index.ts';
import { MemoryJobQueue } from '../kernel/queue/memory.ts';
import { jobQueueContract, waitFor } from './helpers/queue-contract.ts';

jobQueueContract('memory', async () => new MemoryJobQueue());

test('createJobQueue without a Redis URL gives the in-process driver', async (t) => {
  const queue = createJobQueue({});
  t.teardown(() => queue.close());
  t.is(queue.driver, 'memory');
  await t.notThrowsAsync(queue.check());
});

test('a retry with backoff waits in delayed', async (t) => {
  const queue = new MemoryJobQueue();
  t.teardown(() => queue.close());
  const attempts: number[] = [];
  queue.process('work', 1, async (job) => {
    attempts.push(job.attempt);
    throw new Error('fails');
  });
  await queue.enqueue('work', { name: 'n', id: 'slow-retry', attempts: 2, backoffMs: 60_000 });
  await waitFor(() => attempts.length === 1);
  await waitFor(async () => (await queue.counts('work')).delayed === 1);
  t.deepEqual(await queue.counts('work'), { waiting: 0, active: 0, delayed: 1, failed: 0 });
});

test('close drops delayed jobs so no timer fires afterwards', async (t) => {
  const queue = new MemoryJobQueue();
  await queue.enqueue('celery', { name: 'n', id: 'later', delayMs: 60_000 });
  await queue.close();
  t.deepEqual(await queue.counts('celery'), { waiting: 0, active: 0, delayed: 0, failed: 0 });
});
