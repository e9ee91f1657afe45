import test from 'ava';
import { newId } from '../kernel/tenancy/ids.ts';

test('ids are UUIDv7, unique, and count up in the order they were made', (t) => {
  const ids = Array.from({ length: 50_000 }, () => newId());
  t.is(new Set(ids).size, ids.length);
  t.deepEqual([...ids].sort(), ids);
  for (const id of ids.slice(0, 100)) t.regex(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const ms = parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16);
  t.true(Math.abs(ms - Date.now()) < 60_000, 'the first 48 bits are the creation time in ms');
});
