import test from 'ava';
import filter from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([filter]);
});
test.after.always(() => n?.close());

const people = [
  { name: 'ada', age: 36, email: 'ada@example.com', tags: ['x'] },
  { name: 'bo', age: '17', email: 'bo@other.org', tags: [] },
  { name: 'cy', age: 52, email: null, tags: ['y'] },
];

test('keeps the items meeting every condition, discards the rest, in order', async (t) => {
  const r = await n.exec('filter', { conditions: [{ field: 'age', operator: 'gte', value: 18 }, { field: 'email', operator: 'exists' }] }, people);
  t.deepEqual(r.output.kept.map((p: any) => p.name), ['ada']);
  t.deepEqual(r.output.discarded.map((p: any) => p.name), ['bo', 'cy']);
  t.is(r.output.kept_count, 1);
  t.is(r.next, undefined, 'without branches every next follows');
});

test('combine or, config.items over the input, patterns, starts_with', async (t) => {
  const r = await n.exec('filter', { items: people, combine: 'or', conditions: [{ field: 'email', operator: 'matches', value: '@example\\.com$' }, { field: 'name', operator: 'starts_with', value: 'c' }] }, 'ignored');
  t.deepEqual(r.output.kept.map((p: any) => p.name), ['ada', 'cy']);
  const neg = await n.exec('filter', { conditions: [{ field: 'email', operator: 'not_matches', value: 'example' }] }, people);
  t.deepEqual(neg.output.kept.map((p: any) => p.name), ['bo', 'cy']);
});

test('branches: a side is followed only when it has items', async (t) => {
  const both = await n.exec('filter', { conditions: [{ field: 'age', operator: 'gt', value: 40 }], branches: { kept: 'old', discarded: ['young', 'log'] } }, people);
  t.deepEqual(both.next, ['old', 'young', 'log']);
  const none = await n.exec('filter', { conditions: [{ field: 'age', operator: 'gt', value: 100 }], branches: { kept: 'old', discarded: 'young' } }, people);
  t.deepEqual(none.next, ['young']);
});

test('(a+)+$ cannot hang the worker: it runs in linear time on a long subject', async (t) => {
  const evil = [{ s: `${'a'.repeat(50_000)}!` }, { s: 'aaa' }];
  const r = await n.exec('filter', { conditions: [{ field: 's', operator: 'matches', value: '(a+)+$' }] }, evil);
  t.deepEqual(r.output.kept, [{ s: 'aaa' }]);
  t.deepEqual(r.output.discarded, [evil[0]]);
});

test('a pattern the linear engine cannot run is a failed step naming the condition', async (t) => {
  const backref = await n.failure('filter', { conditions: [{ field: 's', operator: 'matches', value: '(a)\\1' }] }, [{ s: 'aa' }]);
  t.is(backref.type, 'BAD_PATTERN');
  t.regex(backref.message, /config\.conditions\.0\.value/);
  t.is((await n.failure('filter', { conditions: [{ field: 's', operator: 'matches', value: '([a-' }] }, [])).type, 'BAD_PATTERN');
  t.is((await n.failure('filter', { conditions: [{ field: 's', operator: 'matches', value: 'a' }] }, [{ s: 'a'.repeat(100_001) }])).type, 'BAD_INPUT');
});

test('bad input: not a list, a resolved config off its schema, a prototype path', async (t) => {
  const notList = await n.failure('filter', { conditions: [{ field: 'a' }] }, { a: 1 });
  t.is(notList.type, 'BAD_INPUT');
  t.regex(notList.message, /must be an array, got object/);
  const badOp = await n.failure('filter', { conditions: [{ field: 'a', operator: 'like' }] }, []);
  t.is(badOp.type, 'BAD_CONFIG');
  t.regex(badOp.message, /config\.conditions\.0\.operator/);
  const r = await n.exec('filter', { conditions: [{ field: '__proto__', operator: 'exists' }, { field: 'constructor', operator: 'exists' }], combine: 'or' }, [{}]);
  t.is(r.output.kept_count, 0, 'inherited properties are not fields');
});

test('a cancel of the run stops a long filter with STEP_INTERRUPTED; a timeout with STEP_TIMEOUT', async (t) => {
  const many = Array.from({ length: 100_000 }, (_, i) => ({ s: `${'ab'.repeat(200)}${i}` }));
  const config = { conditions: [{ field: 's', operator: 'matches', value: '(ab)+9$' }] };
  const running = n.failure('filter', config, many, { run_id: 'r-cancel' });
  setImmediate(() => n.broker.broadcast('workflows.run.interrupt', { run_id: 'r-cancel', reason: 'the run was cancelled' }));
  const stopped = await running;
  t.is(stopped.type, 'STEP_INTERRUPTED');
  t.regex(stopped.message, /cancelled/);
  const late = await n.failure('filter', { ...config, timeout: 0.000001 }, many);
  t.is(late.type, 'STEP_TIMEOUT');
});
