import test from 'ava';
import aggregate from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([aggregate]);
});
test.after.always(() => n?.close());

const sales = [
  { region: 'eu', rep: 'ada', amount: 10 },
  { region: 'us', rep: 'bo', amount: '5.5' },
  { region: 'eu', rep: 'cy', amount: 7 },
  { region: 'eu', rep: 'ada', amount: null },
  { region: 'us', rep: 'bo', amount: 'n/a' },
];

test('group by a field: sum, count, min, max, collect per group, in order of first appearance', async (t) => {
  const r = await n.exec('aggregate', {
    group_by: ['region'],
    aggregations: [{ op: 'sum', field: 'amount', as: 'total' }, { op: 'count', as: 'rows' }, { op: 'count', field: 'amount' }, { op: 'min', field: 'amount' }, { op: 'max', field: 'amount' }, { op: 'collect', field: 'rep', as: 'reps' }],
  }, sales);
  t.deepEqual(r.output, {
    count: 2,
    groups: [
      { region: 'eu', total: 17, rows: 3, count_amount: 2, min_amount: 7, max_amount: 10, reps: ['ada', 'cy', 'ada'] },
      { region: 'us', total: 5.5, rows: 2, count_amount: 2, min_amount: 5.5, max_amount: 5.5, reps: ['bo', 'bo'] },
    ],
  });
});

test('several group keys; no group_by is one group, also for an empty list', async (t) => {
  const two = await n.exec('aggregate', { group_by: ['region', 'rep'], aggregations: [{ op: 'count', as: 'n' }] }, sales);
  t.deepEqual(two.output.groups, [{ region: 'eu', rep: 'ada', n: 2 }, { region: 'us', rep: 'bo', n: 2 }, { region: 'eu', rep: 'cy', n: 1 }]);
  const all = await n.exec('aggregate', { aggregations: [{ op: 'sum', field: 'amount', as: 'total' }] }, sales);
  t.deepEqual(all.output.groups, [{ total: 22.5 }]);
  const none = await n.exec('aggregate', { aggregations: [{ op: 'count', as: 'n' }, { op: 'max', field: 'x' }] }, []);
  t.deepEqual(none.output.groups, [{ n: 0, max_x: null }]);
});

test('bad input: an unknown op, no aggregations, a non-list', async (t) => {
  t.is((await n.failure('aggregate', { aggregations: [{ op: 'median', field: 'a' }] }, [])).type, 'BAD_CONFIG');
  t.is((await n.failure('aggregate', { aggregations: [] }, [])).type, 'BAD_CONFIG');
  t.is((await n.failure('aggregate', { aggregations: [{ op: 'count' }] }, 7)).type, 'BAD_INPUT');
});

test('concat: list values are merged into one list, other values added as they are', async (t) => {
  const r = await n.exec('aggregate', { aggregations: [{ op: 'concat', field: 'tags', as: 'tags' }, { op: 'collect', field: 'tags', as: 'lists' }] }, [{ tags: ['a', 'b'] }, { tags: 'c' }, { tags: [] }, { tags: [['d']] }, {}]);
  t.deepEqual(r.output.groups, [{ tags: ['a', 'b', 'c', ['d']], lists: [['a', 'b'], 'c', [], [['d']]] }]);
});
