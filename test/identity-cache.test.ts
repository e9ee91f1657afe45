import test from 'ava';
import { IdentityCache, type IdentityLookup } from '../kernel/gateway/identity-cache.ts';
import type { Identity } from '../kernel/gateway/authenticate.ts';

const identity = (id: string, token_id: string): Identity => ({ id, entity_id: 'e', role: 'member', email: `${id}@x.test`, token_id });

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A lookup that counts its calls and answers what the test says. */
function lookupOf(answer: () => IdentityLookup) {
  const calls = { n: 0 };
  return { calls, fn: async () => (calls.n++, answer()) };
}

test('a verified token is answered from memory for at most a second', async (t) => {
  const c = clock();
  const cache = new IdentityCache({ now: c.now });
  const lookup = lookupOf(() => ({ identity: identity('u1', 't1'), expiresAt: c.now() + 60_000 }));
  t.is((await cache.resolve('h1', lookup.fn))?.id, 'u1');
  c.advance(999);
  await cache.resolve('h1', lookup.fn);
  t.is(lookup.calls.n, 1);
  c.advance(1);
  await cache.resolve('h1', lookup.fn);
  t.is(lookup.calls.n, 2, 'after a second the database is asked again');
});

test('an entry never outlives the token', async (t) => {
  const c = clock();
  const cache = new IdentityCache({ now: c.now });
  const lookup = lookupOf(() => ({ identity: identity('u1', 't1'), expiresAt: c.now() + 300 }));
  await cache.resolve('h1', lookup.fn);
  c.advance(300);
  await cache.resolve('h1', lookup.fn);
  t.is(lookup.calls.n, 2);
});

test('invalid tokens are remembered briefly too', async (t) => {
  const c = clock();
  const cache = new IdentityCache({ now: c.now });
  const lookup = lookupOf(() => null);
  t.is(await cache.resolve('bad', lookup.fn), null);
  t.is(await cache.resolve('bad', lookup.fn), null);
  t.is(lookup.calls.n, 1);
  c.advance(1000);
  await cache.resolve('bad', lookup.fn);
  t.is(lookup.calls.n, 2);
});

test('invalidation by token id or user id drops the entry at once, and only that one', async (t) => {
  const c = clock();
  const cache = new IdentityCache({ now: c.now });
  const l1 = lookupOf(() => ({ identity: identity('u1', 't1'), expiresAt: c.now() + 60_000 }));
  const l2 = lookupOf(() => ({ identity: identity('u2', 't2'), expiresAt: c.now() + 60_000 }));
  await cache.resolve('h1', l1.fn);
  await cache.resolve('h2', l2.fn);
  cache.invalidate({ token_ids: ['t1'] });
  t.is(cache.size, 1);
  await cache.resolve('h1', l1.fn);
  await cache.resolve('h2', l2.fn);
  t.deepEqual([l1.calls.n, l2.calls.n], [2, 1]);
  cache.invalidate({ user_ids: ['u2'] });
  await cache.resolve('h2', l2.fn);
  t.is(l2.calls.n, 2);
});

test('concurrent requests with one token share one lookup', async (t) => {
  const cache = new IdentityCache();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let calls = 0;
  const lookup = async (): Promise<IdentityLookup> => {
    calls++;
    await gate;
    return { identity: identity('u1', 't1'), expiresAt: Date.now() + 60_000 };
  };
  const answers = Promise.all(Array.from({ length: 20 }, () => cache.resolve('h1', lookup)));
  release();
  t.true((await answers).every((a) => a?.id === 'u1'));
  t.is(calls, 1);
});

test('a lookup that was in flight during an invalidation is not cached, and later callers do not join it', async (t) => {
  const cache = new IdentityCache();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let calls = 0;
  const lookup = async (): Promise<IdentityLookup> => {
    const call = ++calls;
    if (call === 1) await gate; // the first lookup read the row before the revocation
    return call === 1 ? { identity: identity('u1', 't1'), expiresAt: Date.now() + 60_000 } : null;
  };
  const early = cache.resolve('h1', lookup);
  cache.invalidate({ token_ids: ['t1'] });
  const late = cache.resolve('h1', lookup);
  release();
  t.is((await early)?.id, 'u1');
  t.is(await late, null, 'a request after the invalidation sees the revocation');
  t.is(await cache.resolve('h1', lookup), null, 'and the stale answer was not cached');
});

test('the cache holds at most maxEntries entries', async (t) => {
  const cache = new IdentityCache({ maxEntries: 100 });
  for (let i = 0; i < 250; i++) await cache.resolve(`h${i}`, async () => ({ identity: identity(`u${i}`, `t${i}`), expiresAt: Date.now() + 60_000 }));
  t.true(cache.size <= 100);
});

test('a failing lookup is not cached and fails every caller waiting on it', async (t) => {
  const cache = new IdentityCache();
  let calls = 0;
  const failing = async (): Promise<IdentityLookup> => {
    calls++;
    throw new Error('database down');
  };
  await t.throwsAsync(Promise.all([cache.resolve('h1', failing), cache.resolve('h1', failing)]), { message: 'database down' });
  await t.throwsAsync(cache.resolve('h1', failing));
  t.is(calls, 2);
});
