import test from 'ava';
import { cronProblems } from '../kernel/schedule/cron.ts';
import { cronScheduleProblems, latestFire, nextFire, nextFires, type Schedule } from '../kernel/schedule/schedule.ts';
import { planFire } from '../kernel/schedule/fire-plan.ts';

const iso = (d: Date | null) => d?.toISOString() ?? null;
const cron = (expr: string, timezone = 'UTC'): Schedule => ({ kind: 'cron', cron: expr, timezone });
const fires = (s: Schedule, after: string, n: number) => nextFires(s, new Date(after), n).map((d) => d.toISOString());

test('spring forward in America/New_York: a daily 02:30 fires once, at 03:00 EDT, that day', (t) => {
  // 2025-03-09: 02:00 EST jumps to 03:00 EDT
  t.deepEqual(fires(cron('30 2 * * *', 'America/New_York'), '2025-03-08T12:00:00Z', 3), ['2025-03-09T07:00:00.000Z', '2025-03-10T06:30:00.000Z', '2025-03-11T06:30:00.000Z']);
});

test('fall back in America/New_York: a daily 01:30 fires once, at the first 01:30 (EDT)', (t) => {
  // 2025-11-02: 02:00 EDT falls back to 01:00 EST; 01:30 happens twice
  t.deepEqual(fires(cron('30 1 * * *', 'America/New_York'), '2025-11-01T12:00:00Z', 3), ['2025-11-02T05:30:00.000Z', '2025-11-03T06:30:00.000Z', '2025-11-04T06:30:00.000Z']);
});

test('spring forward and fall back in Europe/Berlin', (t) => {
  // 2025-03-30: 02:00 CET jumps to 03:00 CEST; 2025-10-26: 03:00 CEST falls back to 02:00 CET
  t.deepEqual(fires(cron('30 2 * * *', 'Europe/Berlin'), '2025-03-29T12:00:00Z', 2), ['2025-03-30T01:00:00.000Z', '2025-03-31T00:30:00.000Z']);
  t.deepEqual(fires(cron('30 2 * * *', 'Europe/Berlin'), '2025-10-25T12:00:00Z', 2), ['2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z']);
});

test('an hourly job keeps its rhythm through both changes (different instants)', (t) => {
  const berlin = cron('15 * * * *', 'Europe/Berlin');
  // the skipped hour has no 02:15; the repeated hour has two
  t.deepEqual(fires(berlin, '2025-03-30T00:00:00Z', 2), ['2025-03-30T00:15:00.000Z', '2025-03-30T01:15:00.000Z']);
  t.deepEqual(fires(berlin, '2025-10-26T00:00:00Z', 2), ['2025-10-26T00:15:00.000Z', '2025-10-26T01:15:00.000Z']);
});

test('a leap day fires only on 29 February', (t) => {
  t.deepEqual(fires(cron('0 9 29 2 *'), '2025-01-01T00:00:00Z', 2), ['2028-02-29T09:00:00.000Z', '2032-02-29T09:00:00.000Z']);
  t.deepEqual(fires(cron('0 9 29 2 *', 'Asia/Tokyo'), '2027-06-01T00:00:00Z', 1), ['2028-02-29T00:00:00.000Z']);
});

test('day-of-month 31 skips the shorter months', (t) => {
  t.deepEqual(fires(cron('0 9 31 * *'), '2025-01-01T00:00:00Z', 4), ['2025-01-31T09:00:00.000Z', '2025-03-31T09:00:00.000Z', '2025-05-31T09:00:00.000Z', '2025-07-31T09:00:00.000Z']);
});

test('lists, ranges, steps and day-of-week 0 = Sunday', (t) => {
  // 2025-06-01 is a Sunday
  t.deepEqual(fires(cron('0 8 * * 0'), '2025-05-30T00:00:00Z', 1), ['2025-06-01T08:00:00.000Z']);
  t.deepEqual(fires(cron('*/20 9-10 * * 1-5'), '2025-06-02T00:00:00Z', 4), ['2025-06-02T09:00:00.000Z', '2025-06-02T09:20:00.000Z', '2025-06-02T09:40:00.000Z', '2025-06-02T10:00:00.000Z']);
  t.deepEqual(fires(cron('0 6,18 * * *'), '2025-06-02T07:00:00Z', 2), ['2025-06-02T18:00:00.000Z', '2025-06-03T06:00:00.000Z']);
});

test('bad expressions name the field and the reason', (t) => {
  t.regex(cronProblems('0 0 9 * * *')[0], /exactly 5 fields.*has 6/);
  t.regex(cronProblems('61 * * * *')[0], /minute '61': 61 is out of range 0-59/);
  t.regex(cronProblems('*/0 * * * *')[0], /minute '\*\/0': a step of 0/);
  t.regex(cronProblems('0 24 * * *')[0], /^hour/);
  t.regex(cronProblems('0 0 0 * *')[0], /^day_of_month '0': 0 is out of range 1-31/);
  t.regex(cronProblems('0 0 * 13 *')[0], /^month/);
  t.regex(cronProblems('0 0 * * 7')[0], /^day_of_week '7'/);
  t.regex(cronProblems('0 0 L * *')[0], /names and L, W/);
  t.regex(cronProblems('0 0 * * MON')[0], /day_of_week/);
  t.regex(cronProblems('5-1 * * * *')[0], /backwards/);
  t.regex(cronProblems('')[0], /has 0/);
  t.deepEqual(cronProblems('0-59/15 0,12 1-31 */2 0-6'), []);
});

test('an unknown zone is a problem of the timezone field', (t) => {
  t.deepEqual(cronScheduleProblems('0 9 * * *', 'Mars/Olympus', 'schedule.').map((p) => p.field), ['schedule.timezone']);
  t.deepEqual(cronScheduleProblems('0 9 * * *', 'Europe/Berlin', 'schedule.'), []);
  t.deepEqual(cronScheduleProblems('99 9 * * *', 'UTC', 'trigger.').map((p) => p.field), ['trigger.cron']);
});

test('every: fires sit on the anchor plus whole intervals', (t) => {
  const every: Schedule = { kind: 'every', every_seconds: 3600, anchor: new Date('2025-01-01T00:10:00Z') };
  t.is(iso(nextFire(every, new Date('2025-01-01T00:00:00Z'))), '2025-01-01T00:10:00.000Z');
  t.is(iso(nextFire(every, new Date('2025-01-01T00:10:00Z'))), '2025-01-01T01:10:00.000Z');
  t.is(iso(latestFire(every, new Date('2025-01-01T05:09:59Z'))), '2025-01-01T04:10:00.000Z');
});

test('at: one instant, then nothing', (t) => {
  const at: Schedule = { kind: 'at', at: new Date('2025-01-01T12:00:00Z') };
  t.is(iso(nextFire(at, new Date('2025-01-01T11:00:00Z'))), '2025-01-01T12:00:00.000Z');
  t.is(nextFire(at, new Date('2025-01-01T12:00:00Z')), null);
});

const opts = { graceMs: 65_000, lookbackMs: 24 * 3600_000 };

test('an on-time fire is for its slot', (t) => {
  const plan = planFire(cron('*/5 * * * *'), new Date('2025-01-01T10:00:00Z'), new Date('2025-01-01T10:00:00.400Z'), opts);
  t.deepEqual(plan, { fire: { scheduled_for: new Date('2025-01-01T10:00:00Z'), caught_up: false }, missed: null, next: new Date('2025-01-01T10:05:00Z') });
});

test('catch-up after 3 h of downtime: one caught_up run for the latest slot, nothing missed', (t) => {
  const plan = planFire(cron('*/5 * * * *'), new Date('2025-01-01T10:00:00Z'), new Date('2025-01-01T13:02:00Z'), opts);
  t.deepEqual(plan.fire, { scheduled_for: new Date('2025-01-01T13:00:00Z'), caught_up: true });
  t.is(plan.missed, null);
  t.is(iso(plan.next), '2025-01-01T13:05:00.000Z');
});

test('catch-up after 30 h of downtime: the slots older than 24 h are one missed entry, the latest fires once', (t) => {
  const daily = cron('0 9 * * *', 'Europe/Berlin'); // 08:00Z in winter
  const plan = planFire(daily, new Date('2025-01-01T08:00:00Z'), new Date('2025-01-02T14:00:00Z'), opts);
  t.deepEqual(plan.fire, { scheduled_for: new Date('2025-01-02T08:00:00Z'), caught_up: true });
  t.deepEqual(plan.missed, { first: new Date('2025-01-01T08:00:00Z'), last: new Date('2025-01-01T08:00:00Z') });
  t.is(iso(plan.next), '2025-01-03T08:00:00.000Z');
  // a weekly job whose only slot was 30 h ago: missed, nothing to catch up
  const weekly = planFire(cron('0 8 * * 3'), new Date('2025-01-01T08:00:00Z'), new Date('2025-01-02T14:00:00Z'), opts);
  t.is(weekly.fire, null);
  t.deepEqual(weekly.missed, { first: new Date('2025-01-01T08:00:00Z'), last: new Date('2025-01-01T08:00:00Z') });
});

test('a one-shot found late within the look-back is caught up, later than that missed', (t) => {
  const at: Schedule = { kind: 'at', at: new Date('2025-01-01T10:00:00Z') };
  t.deepEqual(planFire(at, at.at, new Date('2025-01-01T13:00:00Z'), opts), { fire: { scheduled_for: at.at, caught_up: true }, missed: null, next: null });
  t.deepEqual(planFire(at, at.at, new Date('2025-01-02T16:00:00Z'), opts), { fire: null, missed: { first: at.at, last: at.at }, next: null });
});
