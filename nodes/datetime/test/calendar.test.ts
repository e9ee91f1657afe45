import test from 'ava';
import datetime from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

/** The node's calendar ops (round, extract, diff in several units), from_format, to_zone and output_key. */
let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([datetime]);
});
test.after.always(() => n?.close());

const out = async (config: Record<string, unknown>) => (await n.exec('datetime', config)).output;

test('round down and up to a calendar unit, in the zone, across DST', async (t) => {
  t.like(await out({ op: 'round', datetime: '2025-03-30T15:45:10', zone: 'Europe/Berlin', round_to: 'day' }), { iso: '2025-03-30T00:00:00.000+01:00' }, 'midnight before the spring-forward change is still +01:00');
  t.like(await out({ op: 'round', datetime: '2025-03-30T15:45:10', zone: 'Europe/Berlin', round_to: 'day', direction: 'up' }), { iso: '2025-03-31T00:00:00.000+02:00' });
  t.like(await out({ op: 'round', datetime: '2025-05-14T09:00:00Z', round_to: 'week' }), { iso: '2025-05-12T00:00:00.000Z', weekday: 'Monday' });
  t.like(await out({ op: 'round', datetime: '2025-05-14T09:00:00Z', round_to: 'month', direction: 'up' }), { iso: '2025-06-01T00:00:00.000Z' });
  t.like(await out({ op: 'round', datetime: '2025-06-01T00:00:00Z', round_to: 'month', direction: 'up' }), { iso: '2025-07-01T00:00:00.000Z' }, 'up from a boundary is the next unit');
  t.like(await out({ op: 'round', datetime: '2025-08-20T10:00:00Z', round_to: 'quarter' }), { iso: '2025-07-01T00:00:00.000Z' });
  t.like(await out({ op: 'round', datetime: '2025-01-01T00:30:00Z', zone: 'America/New_York', round_to: 'year' }), { iso: '2024-01-01T00:00:00.000-05:00' }, 'the instant is still 2024 in New York');
});

test('extract a part in the zone: the ISO week, the weekday, the day of the year', async (t) => {
  const part = async (p: string, at = '2025-12-31T23:30:00Z', zone = 'UTC') => (await out({ op: 'extract', datetime: at, zone, part: p })).value;
  t.is(await part('week'), 1, '31 Dec 2025 is in ISO week 1 of 2026');
  t.is(await part('weekday'), 3);
  t.is(await part('day_of_year'), 365);
  t.is(await part('year', '2025-12-31T23:30:00Z', 'Europe/Berlin'), 2026);
  t.is(await part('hour', '2025-07-01T12:00:00Z', 'Asia/Kolkata'), 17);
  t.is(await part('quarter'), 4);
  t.deepEqual(await out({ op: 'extract', datetime: '2025-02-03T04:05:06Z', part: 'minute', output_field: 'm', item: { id: 1 } }), { id: 1, m: 5 });
});

test('diff in several units: calendar days are 23 hours across spring-forward; the ISO duration on request', async (t) => {
  const d = await out({ op: 'diff', datetime: '2025-03-29T12:00:00', to: '2025-03-31T18:30:00', zone: 'Europe/Berlin', units: ['days', 'hours'] });
  t.deepEqual(d.values, { days: 2, hours: 6.5 });
  t.is(d.iso_duration, 'P2DT6.5H');
  t.deepEqual(await out({ op: 'diff', datetime: '2025-01-01', to: '2025-03-15', units: ['months', 'days'], output_field: 'between' }), { between: { months: 2, days: 14 } });
  t.deepEqual(await out({ op: 'diff', datetime: '2025-01-01', to: '2025-01-08', units: ['days'], output_field: 'between', output_key: 'iso_duration' }), { between: 'P7D' });
});

test('from_format reads the date; to_zone shows a format or an addition in another zone', async (t) => {
  t.like(await out({ op: 'format', datetime: '30.03.2025 14:00', from_format: 'dd.MM.yyyy HH:mm', zone: 'Europe/Berlin', to_zone: 'UTC', format: 'yyyy-MM-dd HH:mm' }), { text: '2025-03-30 12:00' });
  t.like(await out({ op: 'add', datetime: '2025-03-29 12:00', from_format: 'yyyy-MM-dd HH:mm', zone: 'Europe/Berlin', amount: { days: 1 }, to_zone: 'UTC' }), { iso: '2025-03-30T10:00:00.000Z' });
  t.like(await out({ op: 'round', datetime: '20250330', from_format: 'yyyyMMdd', round_to: 'month' }), { iso: '2025-03-01T00:00:00.000Z' });
});

test('bad input: a missing unit or part is refused at save, an unreadable date or a DST gap fails the step, an absent output_key is named', async (t) => {
  const noUnit = await n.failure('datetime', { op: 'round', datetime: '2025-01-01T00:00:00Z' });
  t.is(noUnit.type, 'BAD_CONFIG');
  t.regex(noUnit.message, /round_to/);
  t.is((await n.failure('datetime', { op: 'extract', datetime: '2025-01-01T00:00:00Z', part: 'fortnight' })).type, 'BAD_CONFIG');
  t.is((await n.failure('datetime', { op: 'diff', datetime: '2025-01-01', to: '2025-02-01', units: ['aeons'] })).type, 'BAD_CONFIG');
  const unreadable = await n.failure('datetime', { op: 'round', datetime: '31/12/2025', round_to: 'day' });
  t.is(unreadable.type, 'DATETIME_BAD_VALUE');
  t.is((await n.failure('datetime', { op: 'round', datetime: '2025-03-30 02:30', zone: 'Europe/Berlin', round_to: 'hour' })).type, 'DATETIME_NONEXISTENT_TIME');
  t.is((await n.failure('datetime', { op: 'extract', datetime: '2025-01-01', part: 'day', zone: 'Mars/Base' })).type, 'DATETIME_UNKNOWN_ZONE');
  const key = await n.failure('datetime', { op: 'round', datetime: '2025-01-01T10:00:00Z', round_to: 'day', output_field: 'x', output_key: 'text' });
  t.is(key.type, 'DATETIME_BAD_VALUE');
  t.regex(key.message, /output_key 'text' is not in the result of op round/);
});
