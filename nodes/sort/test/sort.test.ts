import test from 'ava';
import sort from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([sort]);
});
test.after.always(() => n?.close());

const names = (r: any) => r.output.items.map((i: any) => i.n);

test('several keys, each typed and ordered; stable for ties', async (t) => {
  const items = [
    { n: 'a', team: 'red', score: '10' },
    { n: 'b', team: 'blue', score: 9 },
    { n: 'c', team: 'red', score: 10 },
    { n: 'd', team: 'blue', score: '11' },
    { n: 'e', team: 'red', score: 2 },
  ];
  const r = await n.exec('sort', { keys: [{ field: 'team' }, { field: 'score', type: 'number', order: 'desc' }] }, items);
  t.deepEqual(names(r), ['d', 'b', 'a', 'c', 'e'], "blue first; by score descending; a before c (equal scores keep their order)");
});

test('number type compares numerically where strings would not; string type is numeric-aware text', async (t) => {
  const items = [{ n: 'x', v: '10' }, { n: 'y', v: '9' }, { n: 'z', v: '100' }];
  t.deepEqual(names(await n.exec('sort', { keys: [{ field: 'v', type: 'number' }] }, items)), ['y', 'x', 'z']);
  const files = [{ n: 'file10' }, { n: 'file2' }, { n: 'File1' }];
  t.deepEqual(names(await n.exec('sort', { keys: [{ field: 'n', type: 'string' }] }, files)), ['File1', 'file2', 'file10']);
});

test('dates sort by instant across offsets; missing and unparsable values go last in both orders', async (t) => {
  const items = [
    { n: 'late', at: '2025-01-01T10:00:00+00:00' },
    { n: 'none' },
    { n: 'early', at: '2025-01-01T10:00:00+02:00' },
    { n: 'bad', at: 'yesterday' },
    { n: 'epoch', at: 0 },
  ];
  t.deepEqual(names(await n.exec('sort', { keys: [{ field: 'at', type: 'date' }] }, items)), ['epoch', 'early', 'late', 'none', 'bad']);
  t.deepEqual(names(await n.exec('sort', { keys: [{ field: 'at', type: 'date', order: 'desc' }] }, items)), ['late', 'early', 'epoch', 'none', 'bad']);
});

test('auto: numbers before strings; the input list is not changed', async (t) => {
  const items = [{ n: 'b', v: 'b' }, { n: 'two', v: 2 }, { n: 'a', v: 'a' }, { n: 'one', v: 1 }];
  const copy = structuredClone(items);
  t.deepEqual(names(await n.exec('sort', { keys: [{ field: 'v' }] }, items)), ['one', 'two', 'a', 'b']);
  t.deepEqual(items, copy);
});

test('bad input: no keys, an unknown type, not a list', async (t) => {
  t.is((await n.failure('sort', { keys: [] }, [])).type, 'BAD_CONFIG');
  const bad = await n.failure('sort', { keys: [{ field: 'a', type: 'uuid' }] }, []);
  t.is(bad.type, 'BAD_CONFIG');
  t.regex(bad.message, /config\.keys\.0\.type/);
  t.is((await n.failure('sort', { keys: [{ field: 'a' }] }, 'x')).type, 'BAD_INPUT');
});

test('shuffle: a permutation of the list, keys not needed; over many runs more than one order comes out', async (t) => {
  const items = Array.from({ length: 8 }, (_, i) => ({ n: i }));
  const orders = new Set<string>();
  for (let run = 0; run < 20; run++) {
    const r = await n.exec('sort', { shuffle: true }, items);
    t.deepEqual([...names(r)].sort(), items.map((i) => i.n), 'the same items');
    orders.add(names(r).join(','));
  }
  // 20 shuffles of 8 items all equal has a chance of 1 in 40320^19
  t.true(orders.size > 1);
  const bad = await n.failure('sort', {}, items);
  t.is(bad.type, 'BAD_CONFIG', 'no keys and no shuffle');
  t.regex(bad.message, /keys/);
  t.is((await n.failure('sort', { shuffle: 'yes' }, items)).type, 'BAD_CONFIG');
});
