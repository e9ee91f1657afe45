import test from 'ava';
import limit from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([limit]);
});
test.after.always(() => n?.close());

test('keeps the first max items, or the last, and says how many were dropped', async (t) => {
  const list = [1, 2, 3, 4, 5];
  t.deepEqual((await n.exec('limit', { max: 2 }, list)).output, { items: [1, 2], count: 2, dropped: 3 });
  t.deepEqual((await n.exec('limit', { max: 2, from: 'end' }, list)).output, { items: [4, 5], count: 2, dropped: 3 });
  t.deepEqual((await n.exec('limit', { max: 9 }, list)).output.items, list);
  t.deepEqual((await n.exec('limit', { max: 0, items: list }, null)).output.items, []);
  t.is((await n.exec('limit', {}, Array.from({ length: 12 }, (_, i) => i))).output.count, 10, 'max defaults to 10');
});

test('bad input: a negative or fractional max, a non-list', async (t) => {
  t.is((await n.failure('limit', { max: -1 }, [])).type, 'BAD_CONFIG');
  t.is((await n.failure('limit', { max: 1.5 }, [])).type, 'BAD_CONFIG');
  const text = await n.failure('limit', { max: 1, items: 'abc' }, []);
  t.is(text.type, 'BAD_CONFIG');
  t.regex(text.message, /config\.items must be array or null, got string/);
  t.is((await n.failure('limit', { max: 1 }, { items: [] })).type, 'BAD_INPUT', 'no config.items: the input must be the list');
});
