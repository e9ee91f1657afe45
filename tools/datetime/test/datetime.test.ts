import test from 'ava';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/pg.ts';
import { runDatetime } from '../index.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const CONTEXT = { entity_id: 'e-1', user_id: null, workspace_id: null, agent_id: null, run_id: null, step_id: null, invocation_id: null };

let kernel: TestKernel;
let db: TestDatabase;
let root: string;

test.before(async () => {
  root = mkdtempSync(join(tmpdir(), 'wao-tool-dt-'));
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
  db = await createTestDatabase('tool_datetime');
  kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: db.url } });
  const record = await kernel.loader.load(join(ROOT, 'tools', 'datetime'));
  if (record.state !== 'loaded') throw new Error(`tools/datetime did not load: ${record.error?.message}`);
});
test.after.always(async () => {
  await kernel?.close();
  await db?.drop();
  if (root) rmSync(root, { recursive: true, force: true });
});

const exec = (args: Record<string, unknown>) => kernel.broker.call('tool.datetime.execute', { arguments: args, context: CONTEXT }) as Promise<any>;

test('adding a calendar day across the spring DST change keeps the wall time (23 real hours)', async (t) => {
  const day = await exec({ op: 'add', datetime: '2025-03-29T12:00:00', zone: 'Europe/Berlin', amount: { days: 1 } });
  t.like(day, { iso: '2025-03-30T12:00:00.000+02:00', zone: 'Europe/Berlin', offset: '+02:00', is_dst: true, weekday: 'Sunday' });
  const hours = await exec({ op: 'add', datetime: '2025-03-29T12:00:00', zone: 'Europe/Berlin', amount: { hours: 24 } });
  t.is(hours.iso, '2025-03-30T13:00:00.000+02:00');
  const diff = await exec({ op: 'diff', datetime: '2025-03-29T12:00:00', to: '2025-03-30T12:00:00', zone: 'Europe/Berlin', unit: 'hours' });
  t.deepEqual(diff, { value: 23, unit: 'hours', iso_duration: 'P1D' });
  const autumn = await exec({ op: 'diff', datetime: '2025-10-25T12:00:00', to: '2025-10-26T12:00:00', zone: 'Europe/Berlin' });
  t.is(autumn.value, 25);
});

test('subtracting, months at the end of a month, and a local time that does not exist', async (t) => {
  t.is((await exec({ op: 'add', datetime: '2024-03-31T09:00:00Z', amount: { months: -1 } })).iso, '2024-02-29T09:00:00.000Z');
  const gap = await exec({ op: 'parse', datetime: '2025-03-30T02:30:00', zone: 'Europe/Berlin' });
  t.is(gap.iso, '2025-03-30T03:30:00.000+02:00');
});

test('convert, parse with an offset or a format, and format in a locale', async (t) => {
  t.like(await exec({ op: 'convert', datetime: '2025-07-01T12:00:00Z', to_zone: 'America/New_York' }), { iso: '2025-07-01T08:00:00.000-04:00', offset: '-04:00', is_dst: true });
  t.like(await exec({ op: 'convert', datetime: '2025-01-01T12:00:00Z', to_zone: 'America/New_York' }), { iso: '2025-01-01T07:00:00.000-05:00', is_dst: false });
  t.like(await exec({ op: 'parse', datetime: '2025-06-01T10:00:00+05:30', zone: 'UTC' }), { iso: '2025-06-01T04:30:00.000Z', epoch_ms: Date.UTC(2025, 5, 1, 4, 30) });
  t.like(await exec({ op: 'parse', datetime: 'Tue, 01 Jul 2025 12:00:00 GMT' }), { iso: '2025-07-01T12:00:00.000Z' });
  t.like(await exec({ op: 'parse', datetime: '03/04/2025 14:05', format: 'dd/MM/yyyy HH:mm', zone: 'Asia/Tokyo' }), { iso: '2025-04-03T14:05:00.000+09:00', date: '2025-04-03' });
  const formatted = await exec({ op: 'format', datetime: '2025-03-30T12:00:00Z', zone: 'Europe/Berlin', format: 'cccc d. LLLL yyyy, HH:mm', locale: 'de-DE' });
  t.is(formatted.text, 'Sonntag 30. März 2025, 14:00');
});

test('now answers the current time in the zone', (t) => {
  const fixed = DateTime.fromISO('2025-12-24T18:00:00Z', { zone: 'utc' });
  t.like(runDatetime({ op: 'now', zone: 'Australia/Sydney' }, () => fixed), { iso: '2025-12-25T05:00:00.000+11:00', zone: 'Australia/Sydney', weekday: 'Thursday' });
});

test('now through the kernel is a real, current time', async (t) => {
  const before = Date.now();
  const now = await exec({ op: 'now' });
  t.is(now.zone, 'UTC');
  t.true(now.epoch_ms >= before && now.epoch_ms <= Date.now());
});

async function fails(t: { throwsAsync: (p: Promise<unknown>) => Promise<any>; is: (a: unknown, b: unknown) => void; regex: (a: string, r: RegExp) => void }, p: Promise<unknown>, type: string, message?: RegExp) {
  const err = await t.throwsAsync(p);
  t.is(err?.type, type);
  if (message) t.regex(err?.message ?? '', message);
  return err;
}

test('bad zones and unreadable dates are tool errors for the model; missing arguments are invalid arguments', async (t) => {
  await fails(t, exec({ op: 'now', zone: 'Mars/Olympus' }), 'TOOLS_ERR_FAILED', /'Mars\/Olympus' is not an IANA time zone/);
  await fails(t, exec({ op: 'parse', datetime: 'next tuesday-ish' }), 'TOOLS_ERR_FAILED', /is not a date-time that can be read/);
  t.like(await t.throwsAsync(exec({ op: 'parse', datetime: '2025-02-30' })), { type: 'TOOLS_ERR_FAILED' });
  await fails(t, exec({ op: 'convert', datetime: '2025-01-01T00:00:00Z', to_zone: '+05:00' }), 'TOOLS_ERR_FAILED', /to_zone/);
  await fails(t, exec({ op: 'add', datetime: '2025-01-01T00:00:00Z', amount: { years: 999_999 } }), 'TOOLS_ERR_FAILED', /out of range/);
  const missing = await fails(t, exec({ op: 'add', datetime: '2025-01-01' }), 'TOOLS_ERR_INVALID_ARGUMENTS');
  t.like(missing, { type: 'TOOLS_ERR_INVALID_ARGUMENTS', data: { errors: [{ field: 'amount', type: 'required' }] } });
  t.like(await t.throwsAsync(exec({ op: 'tomorrow' })), { type: 'TOOLS_ERR_INVALID_ARGUMENTS' });
  t.like(await t.throwsAsync(exec({ op: 'format', datetime: '2025-01-01', format: 'yyyy', locale: 'not a locale' })), { type: 'TOOLS_ERR_INVALID_ARGUMENTS' });
});
