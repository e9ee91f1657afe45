import test from 'ava';
import { CollectionCache } from '../kernel/cache/collection-cache.ts';
import { MemoryKeyValueStore } from '../kernel/kv/memory.ts';
import { RedisKeyValueStore } from '../kernel/kv/redis.ts';

function counter() {
  let builds = 0;
  return { build: async () => JSON.stringify({ build: ++builds }), get builds() { return builds; } };
}

for (const [driver, make] of [
  ['memory', () => new MemoryKeyValueStore()],
  ['redis', () => new RedisKeyValueStore({ url: 'redis://127.0.0.1:6379/0', keyPrefix: `test:cache:${process.pid}:${Date.now()}:` })],
] as const) {
  test(`${driver}: a page is built once, rebuilt after an invalidation, and kept apart per entity and query`, async (t) => {
    const store = make();
    try {
      const cache = new CollectionCache(store, 'things', { enabled: true });
      const c = counter();
      t.is(String(await cache.read('e1', { limit: 50 }, c.build)), '{"build":1}');
      t.is(String(await cache.read('e1', { limit: 50 }, c.build)), '{"build":1}');
      t.is(String(await cache.read('e1', { limit: 10 }, c.build)), '{"build":2}', 'another query');
      t.is(String(await cache.read('e2', { limit: 50 }, c.build)), '{"build":3}', 'another entity');
      await cache.invalidate('e1');
      t.is(String(await cache.read('e1', { limit: 50 }, c.build)), '{"build":4}', 'rebuilt after a write');
      t.is(String(await cache.read('e2', { limit: 50 }, c.build)), '{"build":3}', 'the other entity keeps its page');
    } finally {
      await store.close();
    }
  });
}

test('disabled: every read builds', async (t) => {
  const cache = new CollectionCache(new MemoryKeyValueStore(), 'things', { enabled: false });
  const c = counter();
  await cache.read('e1', {}, c.build);
  await cache.read('e1', {}, c.build);
  t.is(c.builds, 2);
});
