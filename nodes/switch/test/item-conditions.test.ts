import test from 'ava';
import condition from '../../condition/index.ts';
import filter from '../../filter/index.ts';
import switchNode from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

/**
 * Item conditions beyond a field against a fixed value: computed operands per item, a value read
 * from the same item, ignore_case, date-times parsed, and a switch sending an item to every
 * matching case; with the bad inputs each can meet.
 */
let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([condition, filter, switchNode]);
});
test.after.always(() => n?.close());

const lines = [
  { sku: 'A', price: 4, qty: 3, limit: 10, name: 'Widget' },
  { sku: 'B', price: 2, qty: 2, limit: 3, name: 'gadget' },
  { sku: 'C', price: 10, qty: 1, limit: 20, name: 'WIDGET' },
];

test('an operand computed per item is the left side; value_field reads the right side from the same item; items are unchanged', async (t) => {
  const operands = lines.map((l) => ({ e0: l.price * l.qty }));
  const r = await n.exec('condition', {
    items: lines, operands, conditions: [{ operand: 'e0', operator: 'gt', value_field: 'limit' }], branches: { true: 'big', false: 'small' },
  });
  t.deepEqual(r.output.true, [lines[0], lines[1]]);
  t.deepEqual(r.output.false, [lines[2]]);
  t.deepEqual(r.origins, { true: [0, 1], false: [2] });
  const right = await n.exec('filter', { items: lines, operands: lines.map((l) => ({ e0: l.limit / 2 })), conditions: [{ field: 'price', operator: 'lt', value_operand: 'e0' }] });
  t.deepEqual(right.output.kept.map((l: { sku: string }) => l.sku), ['A'], '4 < 5; 2 < 1.5 and 10 < 10 are not');
});

test('ignore_case compares text in lower case (eq, contains, starts_with, lists); a pattern with it is refused', async (t) => {
  const eq = await n.exec('filter', { items: lines, conditions: [{ field: 'name', operator: 'eq', value: 'widget', ignore_case: true }] });
  t.deepEqual(eq.output.kept.map((l: { sku: string }) => l.sku), ['A', 'C']);
  const exact = await n.exec('filter', { items: lines, conditions: [{ field: 'name', operator: 'eq', value: 'widget' }] });
  t.deepEqual(exact.output.kept, []);
  const starts = await n.exec('filter', { items: lines, conditions: [{ field: 'name', operator: 'not_starts_with', value: 'w', ignore_case: true }] });
  t.deepEqual(starts.output.kept.map((l: { sku: string }) => l.sku), ['B']);
  const list = await n.exec('filter', { items: [{ tags: ['Red', 'blue'] }, { tags: ['green'] }], conditions: [{ field: 'tags', operator: 'contains', value: 'RED', ignore_case: true }] });
  t.is(list.output.kept_count, 1);
  const pattern = await n.failure('filter', { items: lines, conditions: [{ field: 'name', operator: 'matches', value: 'w', ignore_case: true }] });
  t.is(pattern.type, 'BAD_PATTERN');
  t.regex(pattern.message, /config\.conditions\.0\.ignore_case does not apply to patterns/);
});

test('type datetime parses both sides (offsets, SQL form, a zone for text without offset) and compares instants', async (t) => {
  const items = [{ at: '2024-03-01T10:00:00+01:00' }, { at: '2024-03-01 09:30:00' }, { at: 'Fri, 01 Mar 2024 08:00:00 GMT' }, { at: null }];
  const after = await n.exec('filter', { items, conditions: [{ field: 'at', operator: 'gt', value: '2024-03-01T08:45:00Z', type: 'datetime' }] });
  t.deepEqual(after.output.kept, [items[0], items[1]], '10:00+01:00 is 09:00Z; 09:30 read in UTC; null is no date-time');
  const berlin = await n.exec('filter', { items, conditions: [{ field: 'at', operator: 'gt', value: '2024-03-01T08:45:00Z', type: 'datetime', zone: 'Europe/Berlin' }] });
  t.deepEqual(berlin.output.kept, [items[0]], '09:30 in Berlin is 08:30Z');
  const same = await n.exec('filter', { items, conditions: [{ field: 'at', operator: 'eq', value: '2024-03-01T09:00:00.000Z', type: 'datetime' }] });
  t.deepEqual(same.output.kept, [items[0]], 'equal instants in other notations');
  const asText = await n.exec('filter', { items, conditions: [{ field: 'at', operator: 'gt', value: '2024-03-01T08:45:00Z' }] });
  t.notDeepEqual(asText.output.kept, after.output.kept, 'without type the values compare as text');
});

test('bad input: a value that is no date-time, an unknown zone, an operator that does not compare date-times, operands missing or not one per item', async (t) => {
  const notDate = await n.failure('filter', { items: [{ at: 'soon' }], conditions: [{ field: 'at', operator: 'lt', value: '2024-01-01', type: 'datetime' }] });
  t.is(notDate.type, 'BAD_INPUT');
  t.regex(notDate.message, /config\.conditions\.0 \(left\): 'soon' is not a date-time/);
  const zone = await n.failure('filter', { items: [], conditions: [{ field: 'at', operator: 'lt', value: '2024-01-01', type: 'datetime', zone: 'Mars/Olympus' }] });
  t.is(zone.type, 'BAD_CONFIG');
  t.regex(zone.message, /config\.conditions\.0\.zone 'Mars\/Olympus'/);
  const op = await n.failure('filter', { items: [], conditions: [{ field: 'at', operator: 'contains', value: '2024', type: 'datetime' }] });
  t.regex(op.message, /config\.conditions\.0\.operator 'contains' does not compare date-times/);
  const missing = await n.failure('condition', { items: lines, conditions: [{ operand: 'e0', operator: 'truthy' }], branches: {} });
  t.is(missing.type, 'BAD_CONFIG');
  t.regex(missing.message, /config\.conditions\.0\.operand reads operand 'e0', but the step has no config\.operands/);
  const short = await n.failure('switch', { items: lines, operands: [{ e0: 1 }], cases: [{ conditions: [{ operand: 'e0', operator: 'eq', value: 1 }], next: 'a' }] });
  t.is(short.type, 'BAD_INPUT');
  t.regex(short.message, /config\.operands has 1 elements for 3 items/);
  const notList = await n.failure('condition', { items: lines, operands: { e0: 1 }, conditions: [{ operand: 'e0' }], branches: {} });
  t.regex(notList.message, /config\.operands must be a list with one element per item, got object/);
  const offSchema = await n.failure('filter', { items: lines, operands: { e0: 1 }, conditions: [{ operand: 'e0' }] });
  t.is(offSchema.type, 'BAD_CONFIG');
  t.regex(offSchema.message, /config\.operands must be array/);
});

test('switch all_matching: each item goes to every case it matches; default takes only the items no case matched', async (t) => {
  const cases = [
    { conditions: [{ field: 'price', operator: 'gte', value: 4 }], next: 'pricey' },
    { conditions: [{ field: 'qty', operator: 'gte', value: 2 }], next: 'bulk' },
    { conditions: [{ field: 'sku', operator: 'eq', value: 'Z' }], next: 'never' },
  ];
  const all = await n.exec('switch', { items: lines, cases, all_matching: true, default: 'rest' });
  t.deepEqual(all.output, { case_0: [lines[0], lines[2]], case_1: [lines[0], lines[1]], case_2: [], default: [] });
  t.deepEqual(all.origins, { case_0: [0, 2], case_1: [0, 1], case_2: [], default: [] });
  t.deepEqual(all.next, ['pricey', 'bulk']);
  const first = await n.exec('switch', { items: lines, cases, default: 'rest' });
  t.deepEqual(first.output.case_1, [lines[1]], 'without it an item takes its first match only');
});
