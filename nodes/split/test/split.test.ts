import test from 'ava';
import split from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([split]);
});
test.after.always(() => n?.close());

const orders = [
  { id: 1, lines: [{ sku: 'a' }, { sku: 'b' }] },
  { id: 2, lines: [] },
  { id: 3 },
  { id: 4, lines: [{ sku: 'c' }] },
];

test('field: one item per element, in order; items without the list give none', async (t) => {
  const r = await n.exec('split', { field: 'lines' }, orders);
  t.deepEqual(r.output, { items: [{ sku: 'a' }, { sku: 'b' }, { sku: 'c' }], count: 3 });
});

test('field with other_fields keeps the rest of the item, the element under as', async (t) => {
  const r = await n.exec('split', { field: 'lines', include: 'other_fields', as: 'line' }, orders);
  t.deepEqual(r.output.items, [{ id: 1, line: { sku: 'a' } }, { id: 1, line: { sku: 'b' } }, { id: 4, line: { sku: 'c' } }]);
});

test('chunks: lists of size, the last shorter', async (t) => {
  const r = await n.exec('split', { mode: 'chunks', size: 2 }, [1, 2, 3, 4, 5]);
  t.deepEqual(r.output, { items: [[1, 2], [3, 4], [5]], count: 3 });
});

test('bad input: field mode without a field; size 0; a non-list', async (t) => {
  const noField = await n.failure('split', {}, []);
  t.is(noField.type, 'BAD_CONFIG');
  t.regex(noField.message, /field/);
  t.is((await n.failure('split', { mode: 'chunks', size: 0 }, [])).type, 'BAD_CONFIG');
  t.is((await n.failure('split', { field: 'x' }, { x: [] })).type, 'BAD_INPUT');
});
