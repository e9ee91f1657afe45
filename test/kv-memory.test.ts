import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKeyValueStore } from '../kernel/kv/index.ts';
import { MemoryKeyValueStore } from '../kernel/kv/memory.ts';
import { keyValueContract } from './helpers/kv-contract.ts';

keyValueContract('memory', async () => new MemoryKeyValueStore());

test('createKeyValueStore without a url gives the memory store', async (t) => {
  const store = createKeyValueStore({});
  t.teardown(() => store.close());
  t.is(store.driver, 'memory');
});

test('the periodic sweep drops expired keys nobody reads', async (t) => {
  const store = new MemoryKeyValueStore({ sweepIntervalMs: 20 });
  t.teardown(() => store.close());
  await store.set('a', '1', { ttlMs: 30 });
  await store.set('b', '1', { ttlMs: 30 });
  await store.set('kept', '1');
  t.is(store.size, 3);
  while (store.size > 1) await sleep(20);
  t.is(await store.get('kept'), '1');
});

test('sweep removes only expired entries', async (t) => {
  const store = new MemoryKeyValueStore();
  t.teardown(() => store.close());
  await store.set('old', '1', { ttlMs: 1_000 });
  await store.set('new', '1', { ttlMs: 60_000 });
  store.sweep(Date.now() + 5_000);
  t.is(store.size, 1);
  t.is(await store.get('new'), '1');
});
