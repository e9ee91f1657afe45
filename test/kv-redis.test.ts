// RedisKeyValueStore against the real Redis on 127.0.0.1:6379. Every store gets
// its own key prefix under this file's prefix; all of it is deleted afterwards.
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createKeyValueStore } from '../kernel/kv/index.ts';
import { RedisKeyValueStore } from '../kernel/kv/redis.ts';
import { closedPort, deleteRedisKeys, keyValueContract } from './helpers/kv-contract.ts';

const REDIS_URL = 'redis://127.0.0.1:6379/0';
const FILE_PREFIX = `test-kv-redis-${randomUUID()}:`;
const freshPrefix = (): string => `${FILE_PREFIX}${randomUUID()}:`;

test.after.always(async () => {
  await deleteRedisKeys(REDIS_URL, `${FILE_PREFIX}*`);
});

keyValueContract('redis', async () => new RedisKeyValueStore({ url: REDIS_URL, keyPrefix: freshPrefix() }));

test('createKeyValueStore with a url gives a Redis store', async (t) => {
  const store = createKeyValueStore({ url: REDIS_URL, keyPrefix: freshPrefix() });
  t.teardown(() => store.close());
  t.is(store.driver, 'redis');
  await t.notThrowsAsync(store.ping());
});

test('keyPrefix isolates stores and is applied to the stored key', async (t) => {
  const prefixA = freshPrefix();
  const a = new RedisKeyValueStore({ url: REDIS_URL, keyPrefix: prefixA });
  const b = new RedisKeyValueStore({ url: REDIS_URL, keyPrefix: freshPrefix() });
  const raw = new Redis(REDIS_URL);
  t.teardown(async () => {
    await Promise.all([a.close(), b.close()]);
    raw.disconnect();
  });
  await a.set('shared-name', 'from-a', { ttlMs: 60_000 });
  t.is(await b.get('shared-name'), null);
  t.is(await raw.get(`${prefixA}shared-name`), 'from-a');
});

test('a store connects lazily: constructing and closing it sends nothing', async (t) => {
  const store = new RedisKeyValueStore({ url: `redis://127.0.0.1:${await closedPort()}/0` });
  await t.notThrowsAsync(store.close());
});

test('with Redis down, calls reject with a clear error instead of hanging', async (t) => {
  const port = await closedPort();
  const errors: Error[] = [];
  const store = new RedisKeyValueStore({
    url: `redis://:topsecret@127.0.0.1:${port}/0`,
    connectTimeoutMs: 1000,
    onError: (error) => errors.push(error),
  });
  t.teardown(() => store.close());
  const error = await t.throwsAsync(store.get('k'));
  t.regex(error!.message, new RegExp(`^Redis GET failed at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/0: `));
  t.regex(error!.message, /cannot connect \(connect ECONNREFUSED/);
  t.notRegex(error!.message, /topsecret/);
  await t.throwsAsync(store.ping(), { message: /Redis PING failed at .*ECONNREFUSED/ });
  await t.throwsAsync(store.set('k', 'v'), { message: /Redis SET failed/ });
  t.true(errors.length > 0, 'connection errors are reported to onError');
});

test('a URL that is not redis:// is refused up front', (t) => {
  t.throws(() => createKeyValueStore({ url: 'http://127.0.0.1:6379' }), { message: /redis:\/\/ or rediss:\/\// });
});
