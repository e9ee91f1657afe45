import test from 'ava';
import { api, useKernel } from './helpers/kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { jobsPackagesRoot } from './helpers/jobs-kernel.ts';

/**
 * Daylight saving through the scheduler itself (jobs.fireDue with a controllable `now`): a daily
 * job in a skipped hour fires once that day at the first valid instant after it, and in a
 * repeated hour once, at the first occurrence. The job is put on the slot of the day before
 * (as if it had been running for a while), then the scheduler passes are driven across the change.
 */
const pkgs = jobsPackagesRoot();
test.after.always(() => pkgs.remove());
const k = useKernel(test, { label: 'scheduler_dst', roots: [pkgs.root], env: { SCHEDULER_TICK_SECONDS: '3600', SCHEDULER_SWEEP_SECONDS: '3600' } });

const T = 'owner-token';
const call = (path: string, init: Parameters<typeof api>[2] = {}) => api(k.kernel.apiUrl, path, { token: T, ...init });
const fireAt = (iso: string) => k.kernel.broker.call('jobs.fireDue', { now: new Date(Date.parse(iso) + 100).toISOString() }) as Promise<{ runs: { run_id: string; scheduled_for: string }[] }>;
const runsOf = async (jobId: string) => (await call(`/api/v1/jobs/${jobId}/runs?limit=50`)).body.items as { status: string; scheduled_for: string }[];
const nextOf = async (jobId: string) => (await call(`/api/v1/jobs/${jobId}`)).body.next_run_at as string;

/** A daily cron job in `zone` whose next fire is `dayBefore` (UTC). */
async function dailyJob(cron: string, zone: string, dayBefore: string): Promise<string> {
  const res = await call('/api/v1/jobs', { method: 'POST', json: { name: `dst ${zone}`, executor: 'probe', config: { mode: 'succeed' }, schedule: { kind: 'cron', cron, timezone: zone } } });
  if (res.status !== 201) throw new Error(res.text);
  await k.kernel.stores!.db.query('UPDATE jobs SET next_run_at = $2 WHERE id = $1', { bind: [res.body.id, dayBefore] });
  return res.body.id;
}

/** Drives passes at each instant; answers the slots fired for the job, oldest first, once their runs ended. */
async function drive(jobId: string, instants: string[]): Promise<string[]> {
  for (const at of instants) {
    await fireAt(at);
    await eventually(async () => (await runsOf(jobId)).every((r) => !['queued', 'running'].includes(r.status)));
  }
  return (await runsOf(jobId)).map((r) => r.scheduled_for).sort();
}

const cases: { what: string; cron: string; zone: string; slots: string[]; extraPasses: string[]; next: string }[] = [
  {
    what: 'spring-forward in America/New_York: 02:30 is skipped on 2027-03-14 and fires once at 03:00 EDT',
    cron: '30 2 * * *',
    zone: 'America/New_York',
    slots: ['2027-03-13T07:30:00.000Z', '2027-03-14T07:00:00.000Z', '2027-03-15T06:30:00.000Z'],
    extraPasses: ['2027-03-14T06:30:00.000Z', '2027-03-14T07:30:00.000Z'],
    next: '2027-03-16T06:30:00.000Z',
  },
  {
    what: 'fall-back in America/New_York: 01:30 happens twice on 2027-11-07 and fires once, at the first',
    cron: '30 1 * * *',
    zone: 'America/New_York',
    slots: ['2027-11-06T05:30:00.000Z', '2027-11-07T05:30:00.000Z', '2027-11-08T06:30:00.000Z'],
    extraPasses: ['2027-11-07T06:30:00.000Z'],
    next: '2027-11-09T06:30:00.000Z',
  },
  {
    what: 'spring-forward in Europe/Berlin: 02:30 is skipped on 2027-03-28 and fires once at 03:00 CEST',
    cron: '30 2 * * *',
    zone: 'Europe/Berlin',
    slots: ['2027-03-27T01:30:00.000Z', '2027-03-28T01:00:00.000Z', '2027-03-29T00:30:00.000Z'],
    extraPasses: ['2027-03-28T00:30:00.000Z', '2027-03-28T01:30:00.000Z'],
    next: '2027-03-30T00:30:00.000Z',
  },
  {
    what: 'fall-back in Europe/Berlin: 02:30 happens twice on 2027-10-31 and fires once, at the first',
    cron: '30 2 * * *',
    zone: 'Europe/Berlin',
    slots: ['2027-10-30T00:30:00.000Z', '2027-10-31T00:30:00.000Z', '2027-11-01T01:30:00.000Z'],
    extraPasses: ['2027-10-31T01:30:00.000Z'],
    next: '2027-11-02T01:30:00.000Z',
  },
];

for (const c of cases) {
  test.serial(c.what, async (t) => {
    const id = await dailyJob(c.cron, c.zone, c.slots[0]);
    // every slot, plus passes at the instants a wrong evaluation would fire (the skipped wall time, the repeat)
    const instants = [...c.slots, ...c.extraPasses].sort();
    t.deepEqual(await drive(id, instants), c.slots);
    t.true((await runsOf(id)).every((r) => r.status === 'succeeded'));
    t.is(await nextOf(id), c.next);
  });
}
