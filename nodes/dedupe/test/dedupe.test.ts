import test from 'ava';
import dedupe from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([dedupe]);
});
test.after.always(() => n?.close());

test('scope run: the first of each key stays, in order; later ones are duplicates', async (t) => {
  const items = [{ e: 'a@x', n: 1 }, { e: 'b@x', n: 2 }, { e: 'a@x', n: 3 }, { n: 4 }, { n: 5 }];
  const r = await n.exec('dedupe', { keys: ['e'] }, items);
  t.deepEqual(r.output.items.map((i: any) => i.n), [1, 2, 4]);
  t.deepEqual(r.output.duplicates.map((i: any) => i.n), [3, 5], 'a missing key is a key (null) too');
  t.is(r.output.duplicate_count, 2);
});

test('no keys: whole items, object keys in any order; types are not mixed up', async (t) => {
  const r = await n.exec('dedupe', {}, [{ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }, '1', 1, null, 'null']);
  t.deepEqual(r.output.items, [{ a: 1, b: [1, { c: 2, d: 3 }] }, '1', 1, null, 'null']);
});

test('bad input: an unknown scope, a non-list; binding scope outside a run', async (t) => {
  t.is((await n.failure('dedupe', { scope: 'forever' }, [])).type, 'BAD_CONFIG');
  t.is((await n.failure('dedupe', {}, 'abc')).type, 'BAD_INPUT');
  t.is((await n.failure('dedupe', { scope: 'binding' }, [1], { entity_id: '', step_id: '' })).type, 'NO_RUN_CONTEXT');
});

test('exclude: whole items compared without some fields, nested paths too; the first item is kept as it was', async (t) => {
  const items = [
    { id: 1, at: 't1', meta: { trace: 'x', src: 'a' } },
    { id: 1, at: 't2', meta: { trace: 'y', src: 'a' } },
    { id: 1, at: 't3', meta: { trace: 'z', src: 'b' } },
  ];
  const r = await n.exec('dedupe', { exclude: ['at', 'meta.trace'] }, items);
  t.deepEqual(r.output.items, [items[0], items[2]]);
  t.deepEqual(r.output.duplicates, [items[1]]);
  t.is((await n.failure('dedupe', { exclude: 'at' }, items)).type, 'BAD_CONFIG');
});
