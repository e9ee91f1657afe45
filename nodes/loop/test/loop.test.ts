import test from 'ava';
import loop, { MAX_LOOP_ITERATIONS } from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

// The loop step alone: what it answers when the engine reaches it. The iterations themselves
// (receipts <loop>@<i>, resume, retry) are the engine's: test/workflows-loop.test.ts.
let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([loop]);
});
test.after.always(() => n?.close());

const branches = { body: 'work', done: 'report' };

test('a list: the body branch is next, with the number of iterations its batch size gives', async (t) => {
  const items = [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }];
  t.deepEqual(await n.exec('loop', { items, branches }), { output: { items, batch_size: 1, iterations: 5 }, next: ['work'] });
  t.deepEqual(await n.exec('loop', { items, batch_size: 2, branches }), { output: { items, batch_size: 2, iterations: 3 }, next: ['work'] });
  t.deepEqual((await n.exec('loop', { items, batch_size: 5, branches: { body: ['a', 'b'] } })).next, ['a', 'b'], 'every body target');
});

test('an empty list: no iteration, the done branch at once with empty results', async (t) => {
  t.deepEqual(await n.exec('loop', { items: [], branches }), { output: { items: [], batch_size: 1, iterations: 0, results: [], collected: [] }, next: ['report'] });
  t.deepEqual((await n.exec('loop', { items: [], branches: { body: 'work' } })).next, [], 'no done branch: nothing follows');
});

test('too many iterations fail with LOOP_TOO_LONG; a bigger batch makes the same list fit', async (t) => {
  const items = Array.from({ length: MAX_LOOP_ITERATIONS + 1 }, (_, i) => i);
  const failed = await n.failure('loop', { items, branches });
  t.is(failed.type, 'LOOP_TOO_LONG');
  t.regex(failed.message, new RegExp(`${MAX_LOOP_ITERATIONS + 1} iterations of 1`));
  t.is((await n.exec('loop', { items, batch_size: 2, branches })).output.iterations, Math.ceil(items.length / 2));
});

test('a resolved config that does not fit fails with BAD_CONFIG naming the key', async (t) => {
  const notList = await n.failure('loop', { items: 'abc', branches });
  t.is(notList.type, 'BAD_CONFIG');
  t.regex(notList.message, /config\.items must be array/);
  t.is((await n.failure('loop', { items: [1], batch_size: 0, branches })).type, 'BAD_CONFIG');
  t.regex((await n.failure('loop', { items: [1], branches: { done: 'report' } })).message, /config\.branches\.body/);
});
