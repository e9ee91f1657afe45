import test from 'ava';
import datetime from '../index.ts';
import { startNodeBroker, type NodeBroker } from '../../../test/helpers/node-broker.ts';

let n: NodeBroker;
test.before(async () => {
  n = await startNodeBroker([datetime]);
});
test.after.always(() => n?.close());

const out = async (config: Record<string, unknown>) => (await n.exec('datetime', config)).output;

test('parse a wall time in a zone; convert it; format it in a locale', async (t) => {
  t.like(await out({ op: 'parse', datetime: '2025-07-01 09:15:00', zone: 'Europe/Berlin' }), { iso: '2025-07-01T09:15:00.000+02:00', offset: '+02:00', is_dst: true });
  t.like(await out({ op: 'convert', datetime: '2025-01-15T12:00:00Z', to_zone: 'Asia/Kolkata' }), { iso: '2025-01-15T17:30:00.000+05:30' });
  t.like(await out({ op: 'format', datetime: '2025-03-01T08:00:00Z', zone: 'Europe/Paris', format: 'cccc d LLLL yyyy HH:mm', locale: 'fr-FR' }), { text: 'samedi 1 mars 2025 09:00' });
  t.like(await out({ op: 'parse', datetime: '31/12/2025 23:59', format: 'dd/MM/yyyy HH:mm', zone: 'America/New_York' }), { iso: '2025-12-31T23:59:00.000-05:00' });
});

test('DST-correct: a calendar day across spring-forward is 23 hours, 24 hours is a later wall time', async (t) => {
  const day = await out({ op: 'add', datetime: '2025-03-29T12:00:00', zone: 'Europe/Berlin', amount: { days: 1 } });
  t.like(day, { iso: '2025-03-30T12:00:00.000+02:00' });
  const hours = await out({ op: 'add', datetime: '2025-03-29T12:00:00', zone: 'Europe/Berlin', amount: { hours: 24 } });
  t.like(hours, { iso: '2025-03-30T13:00:00.000+02:00' });
  const diff = await out({ op: 'diff', datetime: '2025-03-29T12:00:00', to: '2025-03-30T12:00:00', zone: 'Europe/Berlin', unit: 'hours' });
  t.is(diff.value, 23);
  const back = await out({ op: 'diff', datetime: '2025-10-25T12:00:00', to: '2025-10-26T12:00:00', zone: 'Europe/Berlin' });
  t.is(back.value, 25, 'fall-back day');
});

test('a wall time in a DST gap is bad input; the same instant with an offset is fine; the fall-back hour is read', async (t) => {
  const gap = await n.failure('datetime', { op: 'parse', datetime: '2025-03-30T02:30:00', zone: 'Europe/Berlin' });
  t.is(gap.type, 'DATETIME_NONEXISTENT_TIME');
  t.regex(gap.message, /does not exist in Europe\/Berlin/);
  t.is((await n.failure('datetime', { op: 'add', datetime: '2025-03-09 02:15', zone: 'America/New_York', amount: { days: 1 } })).type, 'DATETIME_NONEXISTENT_TIME');
  t.is((await n.failure('datetime', { op: 'parse', datetime: '30.03.2025 02:30', format: 'dd.MM.yyyy HH:mm', zone: 'Europe/Berlin' })).type, 'DATETIME_NONEXISTENT_TIME');
  t.like(await out({ op: 'parse', datetime: '2025-03-30T02:30:00+01:00', zone: 'Europe/Berlin' }), { iso: '2025-03-30T03:30:00.000+02:00' });
  t.like(await out({ op: 'parse', datetime: '2025-10-26T02:30:00', zone: 'Europe/Berlin' }), { iso: '2025-10-26T02:30:00.000+01:00' }, 'a wall time the fall-back night shows twice is read as the second (standard time), as luxon does');
});

test('bad input: an unknown zone, an unreadable time, a missing key, an unknown op', async (t) => {
  const zone = await n.failure('datetime', { op: 'convert', datetime: '2025-01-01T00:00:00Z', to_zone: 'Mars/Olympus' });
  t.is(zone.type, 'DATETIME_UNKNOWN_ZONE');
  t.regex(zone.message, /to_zone 'Mars\/Olympus'/);
  t.is((await n.failure('datetime', { op: 'now', zone: 'Europe/Nowhere' })).type, 'DATETIME_UNKNOWN_ZONE');
  t.is((await n.failure('datetime', { op: 'parse', datetime: 'next tuesday' })).type, 'DATETIME_BAD_VALUE');
  const missing = await n.failure('datetime', { op: 'format', datetime: '2025-01-01' });
  t.is(missing.type, 'BAD_CONFIG');
  t.regex(missing.message, /format/);
  t.is((await n.failure('datetime', { op: 'tomorrow' })).type, 'BAD_CONFIG');
});
