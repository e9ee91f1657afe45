// BullJobQueue against the real Redis on 127.0.0.1:6379 (database 2). Every
// queue gets its own bull prefix under this file's prefix; all of it is
// deleted afterwards.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { BullJobQueue, toBullJobId } from '../kernel/queue/bull.ts';
import { createJobQueue } from '../kernel/queue/index.ts';
import { closedPort, deleteRedisKeys } from './helpers/kv-contract.ts';
import { jobQueueContract, waitFor } from './helpers/queue-contract.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const JOBS_DB_URL = 'redis://127.0.0.1:6379/2';
const FILE_PREFIX = `test-queue-bull-${randomUUID()}`;
const freshPrefix = (): string => `${FILE_PREFIX}-${randomUUID()}`;

test.after.always(async () => {
  await deleteRedisKeys(JOBS_DB_URL, `${FILE_PREFIX}*`);
});

jobQueueContract('bull', async () => new BullJobQueue({ redisUrl: REDIS_URL, prefix: freshPrefix() }));

test('createJobQueue with a Redis URL gives the bull driver', async (t) => {
  const queue = createJobQueue({ redisUrl: REDIS_URL, prefix: freshPrefix() });
  t.teardown(() => queue.close());
  t.is(queue.driver, 'bull');
  await t.notThrowsAsync(queue.check());
});

test('jobs live under the prefix in database 2 whatever database the URL names', async (t) => {
  const prefix = freshPrefix();
  const queue = new BullJobQueue({ redisUrl: 'redis://127.0.0.1:6379/5', prefix });
  const db2 = new Redis(JOBS_DB_URL);
  const db5 = new Redis('redis://127.0.0.1:6379/5');
  t.teardown(async () => {
    await queue.close();
    db2.disconnect();
    db5.disconnect();
  });
  await queue.enqueue('celery', { name: 'n', id: 'where' });
  t.is(await db2.exists(`${prefix}:celery:${toBullJobId('where')}`), 1);
  t.deepEqual(await db5.keys(`${prefix}*`), []);
});

test('a completed job is removed from Redis', async (t) => {
  const prefix = freshPrefix();
  const queue = new BullJobQueue({ redisUrl: REDIS_URL, prefix });
  const db2 = new Redis(JOBS_DB_URL);
  t.teardown(async () => {
    await queue.close();
    db2.disconnect();
  });
  let done = false;
  queue.process('work', 1, async () => {
    done = true;
  });
  await queue.enqueue('work', { name: 'n', id: 'finished' });
  await waitFor(async () => done && (await queue.counts('work')).active === 0);
  await waitFor(async () => (await db2.exists(`${prefix}:work:${toBullJobId('finished')}`)) === 0);
  t.is(await db2.zcard(`${prefix}:work:completed`), 0);
});

test('with Redis down, calls reject with a clear error instead of hanging', async (t) => {
  const port = await closedPort();
  const errors: Error[] = [];
  const queue = new BullJobQueue({
    redisUrl: `redis://:topsecret@127.0.0.1:${port}`,
    prefix: freshPrefix(),
    connectTimeoutMs: 1000,
    onError: (error) => errors.push(error),
  });
  const target = `redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/2`;
  const enqueueError = await t.throwsAsync(queue.enqueue('celery', { name: 'tick', id: 'x' }));
  t.regex(enqueueError!.message, new RegExp(`^Redis enqueue 'tick' on 'celery' failed at ${target}: cannot connect \\(connect ECONNREFUSED`));
  t.notRegex(enqueueError!.message, /topsecret/);
  await t.throwsAsync(queue.check(), { message: new RegExp(`^Redis PING failed at ${target}: cannot connect`) });
  await t.throwsAsync(queue.counts('work'), { message: /Redis count jobs on 'work' failed .*cannot connect/ });
  t.true(errors.length > 0, 'connection errors are reported to onError');
  queue.process('work', 2, async () => {});
  await t.notThrowsAsync(queue.drain(500));
  await t.notThrowsAsync(queue.close(), 'closing does not wait for the unreachable server');
});
