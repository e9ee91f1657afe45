// The behaviour every JobQueue driver must show. `openQueue` returns a fresh,
// isolated queue (its own bull prefix for Redis) per test, so the tests of one
// file run concurrently; the contract closes it. Waits poll a condition and
// are bounded by ava's test timeout; nothing asserts on elapsed time.
import test, { type ExecutionContext } from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobQueue } from '../../kernel/queue/types.ts';

export type OpenQueue = (t: ExecutionContext) => Promise<JobQueue>;

/** Polls until `condition` holds. */
export async function waitFor(condition: () => boolean | Promise<boolean>, pollMs = 10): Promise<void> {
  while (!(await condition())) await sleep(pollMs);
}

interface Gate {
  promise: Promise<void>;
  open: () => void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

async function open(t: ExecutionContext, openQueue: OpenQueue): Promise<JobQueue> {
  const queue = await openQueue(t);
  t.teardown(() => queue.close());
  return queue;
}

/** Time for a wrongly running job to show up before asserting it did not (not a timing assertion). */
const SETTLE_MS = 300;

export function jobQueueContract(label: string, openQueue: OpenQueue): void {
  test(`${label}: runs every job and never exceeds the concurrency`, async (t) => {
    const queue = await open(t, openQueue);
    const ids = Array.from({ length: 7 }, (_, i) => `job-${i}`);
    for (const id of ids) await queue.enqueue('work', { name: 'step', id });
    let started = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const done: string[] = [];
    queue.process('work', 3, async (job) => {
      started += 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Hold each job until three run at once (or no more will start), so a
      // driver that runs fewer in parallel than allowed never finishes.
      await waitFor(() => inFlight >= 3 || started === ids.length, 2);
      await sleep(5);
      inFlight -= 1;
      done.push(job.id);
    });
    await waitFor(() => done.length === ids.length);
    t.is(maxInFlight, 3);
    t.deepEqual([...done].sort(), ids);
    await waitFor(async () => (await queue.counts('work')).active === 0);
    t.deepEqual(await queue.counts('work'), { waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  test(`${label}: enqueueNew puts many fresh jobs on a queue at once, each run once`, async (t) => {
    const queue = await open(t, openQueue);
    const ids = Array.from({ length: 25 }, (_, i) => `fresh-${i}`);
    await queue.enqueueNew('work', ids.map((id) => ({ name: 'job.run', id })));
    await queue.enqueueNew('work', []);
    const seen: string[] = [];
    queue.process('work', 4, async (job) => {
      t.is(job.name, 'job.run');
      seen.push(job.id);
    });
    await waitFor(() => seen.length === ids.length);
    await sleep(SETTLE_MS);
    t.deepEqual([...seen].sort(), [...ids].sort());
  });

  test(`${label}: passes name, id and attempt to the handler`, async (t) => {
    const queue = await open(t, openQueue);
    const seen: unknown[] = [];
    queue.process('celery', 2, async (job) => {
      seen.push(job);
    });
    await queue.enqueue('celery', { name: 'schedule.tick', id: 'row-42' });
    await waitFor(() => seen.length === 1);
    t.deepEqual(seen, [{ name: 'schedule.tick', id: 'row-42', attempt: 1 }]);
  });

  test(`${label}: a delayed job runs after a later undelayed one`, async (t) => {
    const queue = await open(t, openQueue);
    const order: string[] = [];
    queue.process('celery', 1, async (job) => {
      order.push(job.id);
    });
    // long enough that a loaded machine still enqueues the second job before the first is due
    await queue.enqueue('celery', { name: 'n', id: 'delayed', delayMs: 1500 });
    await queue.enqueue('celery', { name: 'n', id: 'immediate' });
    await waitFor(() => order.length === 2);
    t.deepEqual(order, ['immediate', 'delayed']);
  });

  test(`${label}: a failed try is retried with a growing attempt number`, async (t) => {
    const queue = await open(t, openQueue);
    const attempts: number[] = [];
    queue.process('work', 1, async (job) => {
      attempts.push(job.attempt);
      if (job.attempt < 3) throw new Error(`try ${job.attempt} fails`);
    });
    await queue.enqueue('work', { name: 'flaky', id: 'r1', attempts: 3, backoffMs: 20 });
    await waitFor(() => attempts.length === 3);
    t.deepEqual(attempts, [1, 2, 3]);
    await waitFor(async () => (await queue.counts('work')).active === 0);
    t.deepEqual(await queue.counts('work'), { waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  test(`${label}: a job out of attempts counts as failed, and its id can be enqueued again`, async (t) => {
    const queue = await open(t, openQueue);
    const attempts: number[] = [];
    queue.process('work', 1, async (job) => {
      attempts.push(job.attempt);
      throw new Error('always fails');
    });
    await queue.enqueue('work', { name: 'doomed', id: 'r2', attempts: 2 });
    await waitFor(async () => (await queue.counts('work')).failed === 1);
    t.deepEqual(attempts, [1, 2]);
    t.deepEqual(await queue.counts('work'), { waiting: 0, active: 0, delayed: 0, failed: 1 });

    await queue.enqueue('work', { name: 'doomed', id: 'r2', attempts: 2 });
    await waitFor(() => attempts.length === 4);
    t.deepEqual(attempts, [1, 2, 1, 2]);
    await waitFor(async () => (await queue.counts('work')).failed === 1 && (await queue.counts('work')).active === 0);
    t.deepEqual(await queue.counts('work'), { waiting: 0, active: 0, delayed: 0, failed: 1 });
  });

  test(`${label}: enqueuing an id that is waiting or delayed is a no-op`, async (t) => {
    const queue = await open(t, openQueue);
    await queue.enqueue('celery', { name: 'n', id: 'same' });
    await queue.enqueue('celery', { name: 'n', id: 'same' });
    await queue.enqueue('celery', { name: 'n', id: 'later', delayMs: 60_000 });
    await queue.enqueue('celery', { name: 'n', id: 'later', delayMs: 60_000 });
    await queue.enqueue('celery', { name: 'n', id: 'later' });
    t.deepEqual(await queue.counts('celery'), { waiting: 1, active: 0, delayed: 1, failed: 0 });
    await queue.enqueue('work', { name: 'n', id: 'same' });
    t.is((await queue.counts('work')).waiting, 1, 'ids are per queue');
  });

  test(`${label}: enqueuing an active id is a no-op; a finished id runs again`, async (t) => {
    const queue = await open(t, openQueue);
    const calls: string[] = [];
    const release = gate();
    queue.process('work', 1, async (job) => {
      calls.push(job.id);
      if (job.id === 'busy' && calls.length === 1) await release.promise;
    });
    await queue.enqueue('work', { name: 'n', id: 'busy' });
    await waitFor(() => calls.length === 1);
    await queue.enqueue('work', { name: 'n', id: 'busy' });
    await queue.enqueue('work', { name: 'n', id: 'sentinel' });
    release.open();
    await waitFor(() => calls.includes('sentinel'));
    t.deepEqual(calls, ['busy', 'sentinel'], 'the second enqueue of an active id did not queue it again');
    await queue.enqueue('work', { name: 'n', id: 'busy' });
    await waitFor(() => calls.length === 3);
    t.deepEqual(calls, ['busy', 'sentinel', 'busy']);
  });

  test(`${label}: counts waiting, active, delayed and failed jobs`, async (t) => {
    const queue = await open(t, openQueue);
    t.deepEqual(await queue.counts('celery'), { waiting: 0, active: 0, delayed: 0, failed: 0 });
    await queue.enqueue('celery', { name: 'n', id: 'a' });
    await queue.enqueue('celery', { name: 'n', id: 'b' });
    await queue.enqueue('celery', { name: 'n', id: 'c', delayMs: 60_000 });
    t.deepEqual(await queue.counts('celery'), { waiting: 2, active: 0, delayed: 1, failed: 0 });
    const release = gate();
    let started = 0;
    queue.process('celery', 1, async (job) => {
      started += 1;
      await release.promise;
      if (job.id === 'b') throw new Error('b fails');
    });
    await waitFor(() => started === 1);
    t.deepEqual(await queue.counts('celery'), { waiting: 1, active: 1, delayed: 1, failed: 0 });
    release.open();
    await waitFor(async () => (await queue.counts('celery')).failed === 1);
    t.deepEqual(await queue.counts('celery'), { waiting: 0, active: 0, delayed: 1, failed: 1 });
  });

  test(`${label}: drain waits for the running handler, then takes no new jobs`, async (t) => {
    const queue = await open(t, openQueue);
    const events: string[] = [];
    const release = gate();
    queue.process('celery', 1, async (job) => {
      events.push(`${job.id} started`);
      if (job.id === 'first') await release.promise;
      events.push(`${job.id} finished`);
    });
    await queue.enqueue('celery', { name: 'n', id: 'first' });
    await waitFor(() => events.length === 1);
    await queue.enqueue('celery', { name: 'n', id: 'second' });
    const drained = queue.drain(60_000).then(() => events.push('drained'));
    await sleep(20); // let drain stop the intake before the running job ends
    t.deepEqual(events, ['first started'], 'drain does not return while a handler runs');
    release.open();
    await drained;
    t.deepEqual(events, ['first started', 'first finished', 'drained']);
    await sleep(SETTLE_MS);
    t.deepEqual(events, ['first started', 'first finished', 'drained'], 'no job starts after drain');
    t.deepEqual(await queue.counts('celery'), { waiting: 1, active: 0, delayed: 0, failed: 0 });
  });

  test(`${label}: drain gives up on a handler that outlives the timeout`, async (t) => {
    const queue = await open(t, openQueue);
    const stuck = gate();
    t.teardown(() => stuck.open());
    let started = false;
    queue.process('work', 1, async () => {
      started = true;
      await stuck.promise;
    });
    await queue.enqueue('work', { name: 'n', id: 'stuck' });
    await waitFor(() => started);
    await t.notThrowsAsync(queue.drain(100));
    t.is((await queue.counts('work')).active, 1);
  });

  test(`${label}: a paused queue takes no jobs while the other queue runs`, async (t) => {
    const queue = await open(t, openQueue);
    const ran: string[] = [];
    queue.process('celery', 1, async (job) => {
      ran.push(job.id);
    });
    queue.process('work', 1, async (job) => {
      ran.push(job.id);
    });
    await queue.pause('celery');
    await queue.enqueue('celery', { name: 'n', id: 'held' });
    await queue.enqueue('work', { name: 'n', id: 'free' });
    await waitFor(() => ran.includes('free'));
    await sleep(SETTLE_MS);
    t.deepEqual(ran, ['free']);
    t.is((await queue.counts('celery')).waiting, 1);
  });

  test(`${label}: bad arguments are refused`, async (t) => {
    const queue = await open(t, openQueue);
    await t.throwsAsync(queue.enqueue('celery', { name: 'n', id: '' }), { message: /non-empty id/ });
    await t.throwsAsync(queue.enqueue('celery', { name: '', id: 'x' }), { message: /non-empty name/ });
    await t.throwsAsync(queue.enqueue('celery', { name: 'n', id: 'x', attempts: 0 }), { message: /attempts must be a positive integer/ });
    await t.throwsAsync(queue.enqueue('celery', { name: 'n', id: 'x', delayMs: -1 }), { message: /delayMs must be >= 0/ });
    await t.throwsAsync(queue.enqueue('celery', { name: 'n', id: 'x', backoffMs: Number.NaN }), { message: /backoffMs must be >= 0/ });
    await t.throwsAsync(queue.enqueue('nope' as 'celery', { name: 'n', id: 'x' }), { message: /Unknown queue 'nope'/ });
    t.throws(() => queue.process('celery', 0, async () => {}), { message: /positive integer/ });
    queue.process('celery', 1, async () => {});
    t.throws(() => queue.process('celery', 1, async () => {}), { message: /already has a handler/ });
    t.deepEqual(await queue.counts('celery'), { waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  test(`${label}: check passes while open; calls fail after close`, async (t) => {
    const queue = await openQueue(t);
    await t.notThrowsAsync(queue.check());
    await queue.close();
    await t.throwsAsync(queue.check(), { message: /closed/ });
    await t.throwsAsync(queue.enqueue('work', { name: 'n', id: 'late' }), { message: /closed/ });
    await t.notThrowsAsync(queue.close(), 'close is idempotent');
  });
}
