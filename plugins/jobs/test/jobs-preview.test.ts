import test from 'ava';
import { api, useKernel } from '../../../test/helpers/kernel.ts';
import { jobsPackagesRoot } from '../../../test/helpers/jobs-kernel.ts';

const pkgs = jobsPackagesRoot();
test.after.always(() => pkgs.remove());
const k = useKernel(test, { label: 'jobs_preview', roots: [pkgs.root], env: { SCHEDULER_TICK_SECONDS: '3600', SCHEDULER_SWEEP_SECONDS: '3600' } });

const T = 'owner-token';
const preview = (json: unknown) => api(k.kernel.apiUrl, '/api/v1/jobs/preview', { method: 'POST', token: T, json });
const jobTotal = async () => (await api(k.kernel.apiUrl, '/api/v1/jobs', { token: T })).body.total as number;

test('a cron expression in a zone: the next fires in its wall-clock time, as many as asked', async (t) => {
  const res = await preview({ schedule: { kind: 'cron', cron: '30 2 * * *', timezone: 'America/New_York' }, count: 4 });
  t.is(res.status, 200, res.text);
  t.is(res.body.timezone, 'America/New_York');
  t.is(res.body.next_fire_times.length, 4);
  for (const at of res.body.next_fire_times) t.regex(at, /T0[67]:30:00\.000Z$/); // 02:30 EST or EDT
  const times = res.body.next_fire_times.map((s: string) => Date.parse(s));
  t.true(times[0] > Date.now());
  t.deepEqual([...times].sort((a, b) => a - b), times);
});

test('defaults: five fires, UTC; an interval counts from now; a one-shot has one fire', async (t) => {
  const cron = await preview({ schedule: { kind: 'cron', cron: '0 9 * * 1' } });
  t.is(cron.status, 200, cron.text);
  t.is(cron.body.timezone, 'UTC');
  t.is(cron.body.next_fire_times.length, 5);
  for (const at of cron.body.next_fire_times) t.is(new Date(at).getUTCDay(), 1);
  const every = await preview({ schedule: { kind: 'every', every_seconds: 3600 }, count: 2 });
  t.is(every.status, 200, every.text);
  const [a, b] = every.body.next_fire_times.map((s: string) => Date.parse(s));
  t.is(b - a, 3600_000);
  const at = new Date(Date.now() + 86_400_000).toISOString();
  const once = await preview({ schedule: { kind: 'at', at } });
  t.deepEqual(once.body.next_fire_times, [at]);
});

const bad: [string, unknown, string][] = [
  ['a 6-field cron', { schedule: { kind: 'cron', cron: '0 0 9 * * *' } }, 'schedule.cron'],
  ['minute 61', { schedule: { kind: 'cron', cron: '61 * * * *' } }, 'schedule.cron'],
  ['a step of 0', { schedule: { kind: 'cron', cron: '*/0 * * * *' } }, 'schedule.cron'],
  ['no cron for kind cron', { schedule: { kind: 'cron' } }, 'schedule.cron'],
  ['an unknown zone', { schedule: { kind: 'cron', cron: '0 9 * * *', timezone: 'Mars/Olympus' } }, 'schedule.timezone'],
  ['every below the minimum', { schedule: { kind: 'every', every_seconds: 59 } }, 'schedule.every_seconds'],
  ['at in the past', { schedule: { kind: 'at', at: '2020-01-01T00:00:00Z' } }, 'schedule.at'],
  ['an unknown kind', { schedule: { kind: 'sometimes' } }, 'schedule.kind'],
  ['count 0', { schedule: { kind: 'cron', cron: '* * * * *' }, count: 0 }, 'count'],
  ['count 51', { schedule: { kind: 'cron', cron: '* * * * *' }, count: 51 }, 'count'],
  ['no schedule', {}, 'schedule'],
];
for (const [what, body, field] of bad) {
  test(`422 naming ${field} for ${what}; nothing stored`, async (t) => {
    const before = await jobTotal();
    const res = await preview(body);
    t.is(res.status, 422, res.text);
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), JSON.stringify(res.body.errors));
    t.is(await jobTotal(), before);
  });
}

test('no token: 401', async (t) => {
  const res = await api(k.kernel.apiUrl, '/api/v1/jobs/preview', { method: 'POST', json: { schedule: { kind: 'cron', cron: '* * * * *' } } });
  t.is(res.status, 401);
});

test('the executors loaded now, for the job form; /executors is not read as a job id', async (t) => {
  const res = await api(k.kernel.apiUrl, '/api/v1/jobs/executors', { token: T });
  t.is(res.status, 200, res.text);
  const probe = res.body.items.find((e: { name: string }) => e.name === 'probe');
  t.truthy(probe, JSON.stringify(res.body.items));
  t.like(probe, { queue: 'celery', needs_prompt: false, config: { required: ['mode'] } });
  t.true(Array.isArray(probe.requires));
});
