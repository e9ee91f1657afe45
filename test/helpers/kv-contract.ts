// The behaviour every KeyValueStore driver must show, plus the RateLimiter on
// top of it. `openStore` returns a fresh, isolated store (its own key prefix
// for Redis) so the tests of one file run concurrently; the contract closes it.
import test, { type ExecutionContext } from 'ava';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { RateLimiter } from '../../kernel/kv/rate-limit.ts';
import type { KeyValueStore } from '../../kernel/kv/types.ts';

export type OpenStore = (t: ExecutionContext) => Promise<KeyValueStore>;

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** Deletes every key matching `pattern` in the database of `url`; returns how many went. */
export async function deleteRedisKeys(url: string, pattern: string): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let deleted = 0;
    for await (const keys of redis.scanStream({ match: pattern, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) deleted += await redis.del(...keys);
    }
    return deleted;
  } finally {
    redis.disconnect();
  }
}

async function open(t: ExecutionContext, openStore: OpenStore): Promise<KeyValueStore> {
  const store = await openStore(t);
  t.teardown(() => store.close());
  return store;
}

export function keyValueContract(label: string, openStore: OpenStore): void {
  test(`${label}: get, set, overwrite and del`, async (t) => {
    const store = await open(t, openStore);
    t.is(await store.get('missing'), null);
    await store.set('k', 'one');
    t.is(await store.get('k'), 'one');
    await store.set('k', 'two');
    t.is(await store.get('k'), 'two');
    await store.set('empty', '');
    t.is(await store.get('empty'), '');
    await store.del('k');
    t.is(await store.get('k'), null);
    await t.notThrowsAsync(store.del('never-set'));
  });

  test(`${label}: ttlMs reports the remaining expiry, null without one`, async (t) => {
    const store = await open(t, openStore);
    t.is(await store.ttlMs('missing'), null);
    await store.set('forever', 'v');
    t.is(await store.ttlMs('forever'), null);
    await store.set('expiring', 'v', { ttlMs: 60_000 });
    const left = await store.ttlMs('expiring');
    t.truthy(left !== null && left > 0 && left <= 60_000, `ttl was ${left}`);
    await store.set('expiring', 'again');
    t.is(await store.ttlMs('expiring'), null, 'a set without ttlMs clears the expiry');
  });

  test(`${label}: a key is gone once its ttl has passed`, async (t) => {
    const store = await open(t, openStore);
    await store.set('short', 'v', { ttlMs: 40 });
    await store.set('long', 'v', { ttlMs: 60_000 });
    await sleep(150);
    t.is(await store.get('short'), null);
    t.is(await store.ttlMs('short'), null);
    t.is(await store.get('long'), 'v');
  });

  test(`${label}: incr counts from 1 and sets the ttl only when it creates the key`, async (t) => {
    const store = await open(t, openStore);
    t.is(await store.incr('plain'), 1);
    t.is(await store.incr('plain'), 2);
    t.is(await store.ttlMs('plain'), null);

    t.is(await store.incr('windowed', { ttlMs: 60_000 }), 1);
    t.is(await store.incr('windowed', { ttlMs: 1_000 }), 2);
    const left = await store.ttlMs('windowed');
    t.truthy(left !== null && left > 1_000, `the second incr must not reset the ttl (left ${left})`);

    await store.set('preset', '41');
    t.is(await store.incr('preset', { ttlMs: 60_000 }), 42);
    t.is(await store.ttlMs('preset'), null, 'an existing key keeps having no expiry');
    t.is(await store.get('preset'), '42');
  });

  test(`${label}: an expired counter starts again from 1`, async (t) => {
    const store = await open(t, openStore);
    // long enough that a loaded machine makes both increments inside the window
    t.is(await store.incr('c', { ttlMs: 1000 }), 1);
    t.is(await store.incr('c', { ttlMs: 1000 }), 2);
    await sleep(1200);
    t.is(await store.incr('c', { ttlMs: 1000 }), 1);
  });

  test(`${label}: incr of a non-integer and bad ttls are rejected`, async (t) => {
    const store = await open(t, openStore);
    await store.set('text', 'abc');
    await t.throwsAsync(store.incr('text'), { message: /not an integer/ });
    t.is(await store.get('text'), 'abc');
    for (const ttlMs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await t.throwsAsync(store.set('k', 'v', { ttlMs }), { message: /ttlMs must be a positive number/ });
      await t.throwsAsync(store.incr('n', { ttlMs }), { message: /ttlMs must be a positive number/ });
    }
    t.is(await store.get('k'), null);
    t.is(await store.get('n'), null);
  });

  test(`${label}: ping works until close, then calls reject`, async (t) => {
    const store = await openStore(t);
    await t.notThrowsAsync(store.ping());
    await store.close();
    await t.throwsAsync(store.get('k'), { message: /closed/ });
    await t.throwsAsync(store.ping(), { message: /closed/ });
    await t.notThrowsAsync(store.close(), 'close is idempotent');
  });

  test(`${label}: rate limiter allows the limit, then refuses with a Retry-After`, async (t) => {
    const limiter = new RateLimiter(await open(t, openStore));
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.hit('user-1', 3, 60_000));
    t.deepEqual(results.slice(0, 3), [
      { allowed: true, remaining: 2, retryAfterSec: 0 },
      { allowed: true, remaining: 1, retryAfterSec: 0 },
      { allowed: true, remaining: 0, retryAfterSec: 0 },
    ]);
    const refused = results[3]!;
    t.false(refused.allowed);
    t.is(refused.remaining, 0);
    t.true(refused.retryAfterSec >= 1 && refused.retryAfterSec <= 60, `retryAfter ${refused.retryAfterSec}`);
    t.deepEqual(await limiter.hit('user-2', 3, 60_000), { allowed: true, remaining: 2, retryAfterSec: 0 }, 'keys are counted apart');
  });

  test(`${label}: rate limiter allows again in the next window`, async (t) => {
    const limiter = new RateLimiter(await open(t, openStore));
    // a window long enough that a loaded machine still makes three hits inside it
    t.true((await limiter.hit('ip', 2, 1500)).allowed);
    t.true((await limiter.hit('ip', 2, 1500)).allowed);
    const refused = await limiter.hit('ip', 2, 1500);
    t.false(refused.allowed);
    t.true(refused.retryAfterSec >= 1);
    await sleep(1700);
    t.deepEqual(await limiter.hit('ip', 2, 1500), { allowed: true, remaining: 1, retryAfterSec: 0 });
  });

  test(`${label}: rate limiter rejects a bad limit or window`, async (t) => {
    const limiter = new RateLimiter(await open(t, openStore));
    await t.throwsAsync(limiter.hit('k', 0, 1000), { message: /positive integer/ });
    await t.throwsAsync(limiter.hit('k', 1.5, 1000), { message: /positive integer/ });
    await t.throwsAsync(limiter.hit('k', 5, 0), { message: /window/ });
  });
}
