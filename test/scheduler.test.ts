import test from 'ava';
import { QueryTypes } from 'sequelize';
import { api, useKernel } from './helpers/kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { jobsPackagesRoot } from './helpers/jobs-kernel.ts';

const pkgs = jobsPackagesRoot();
test.after.always(() => pkgs.remove());
// a long tick: the tests move time themselves (jobs.fireDue with `now`), nothing fires on its own
const k = useKernel(test, { label: 'scheduler', roots: [pkgs.root], env: { SCHEDULER_TICK_SECONDS: '3600', SCHEDULER_SWEEP_SECONDS: '3600', JOBS_PAUSE_AFTER_FAILURES: '2', JOBS_POLL_SECONDS: '1' } });

const T = 'owner-token';
const H = 3600_000;
const call = (path: string, init: Parameters<typeof api>[2] = {}) => api(k.kernel.apiUrl, path, { token: T, ...init });
const createJob = async (body: Record<string, unknown>) => {
  const res = await call('/api/v1/jobs', { method: 'POST', json: { name: 'probe', executor: 'probe', config: { mode: 'succeed' }, ...body } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
};
/** One scheduler pass as if the clock said `at`. */
const fireAt = (at: Date) => k.kernel.broker.call('jobs.fireDue', { now: at.toISOString() }) as Promise<{ runs: { run_id: string; scheduled_for: string }[] }>;
const runsOf = async (jobId: string) => (await call(`/api/v1/jobs/${jobId}/runs?limit=200`)).body.items as any[];
const settled = (jobId: string, n: number) => eventually(async () => {
  const runs = await runsOf(jobId);
  return runs.filter((r) => !['queued', 'running'].includes(r.status)).length >= n ? runs : undefined;
});

test.serial('an on-time fire: one run for the slot, the job moves to the next slot', async (t) => {
  const job = await createJob({ schedule: { kind: 'every', every_seconds: 600 } });
  const due = new Date(job.next_run_at);
  const fired = await fireAt(new Date(due.getTime() + 300));
  t.deepEqual(fired.runs.map((r) => r.scheduled_for), [due.toISOString()]);
  const runs = await settled(job.id, 1);
  t.like(runs?.[0], { status: 'succeeded', trigger: 'schedule', caught_up: false, usage: { input_tokens: 3, output_tokens: 4 } });
  const after = (await call(`/api/v1/jobs/${job.id}`)).body;
  t.is(after.next_run_at, new Date(due.getTime() + 600_000).toISOString());
  // the same pass again finds nothing due
  t.deepEqual((await fireAt(new Date(due.getTime() + 300))).runs.filter((r) => r.run_id === runs?.[0].id), []);
});

test.serial('catch-up after 3 h of downtime: one caught_up run for the latest slot, not one per slot', async (t) => {
  const job = await createJob({ schedule: { kind: 'every', every_seconds: 300 } });
  const due = new Date(job.next_run_at);
  await fireAt(new Date(due.getTime() + 3 * H + 60_000));
  const runs = await settled(job.id, 1);
  t.is(runs?.length, 1);
  t.like(runs?.[0], { status: 'succeeded', trigger: 'catch_up', caught_up: true, scheduled_for: new Date(due.getTime() + 3 * H).toISOString() });
  const after = (await call(`/api/v1/jobs/${job.id}`)).body;
  t.is(after.next_run_at, new Date(due.getTime() + 3 * H + 300_000).toISOString());
  t.false(after.attention);
});

test.serial('catch-up after 30 h of downtime: the old slot is logged missed, the latest fires once', async (t) => {
  const job = await createJob({ schedule: { kind: 'cron', cron: '0 9 * * *', timezone: 'Europe/Berlin' } });
  const due = new Date(job.next_run_at);
  await fireAt(new Date(due.getTime() + 30 * H));
  const runs = await settled(job.id, 2);
  const missed = runs!.find((r) => r.status === 'missed');
  const caught = runs!.find((r) => r.caught_up);
  t.is(runs?.length, 2);
  t.is(missed.scheduled_for, due.toISOString());
  t.is(caught.scheduled_for, new Date(due.getTime() + 24 * H).toISOString());
  t.is(caught.status, 'succeeded');
  t.false((await call(`/api/v1/jobs/${job.id}`)).body.attention, 'caught up: nothing needs attention');
});

test.serial('a weekly job down for 30 h: missed and not caught up, so it needs attention', async (t) => {
  const job = await createJob({ schedule: { kind: 'cron', cron: '0 8 * * 3' } });
  const due = new Date(job.next_run_at);
  await fireAt(new Date(due.getTime() + 30 * H));
  const runs = await runsOf(job.id);
  t.deepEqual(runs.map((r) => r.status), ['missed']);
  const after = (await call(`/api/v1/jobs/${job.id}`)).body;
  t.true(after.attention);
  t.truthy(after.missed_at);
  const listed = await call('/api/v1/jobs?status=attention');
  t.true(listed.body.items.some((j: { id: string }) => j.id === job.id));
});

test.serial('overlap skip: a fire while the previous run is still going is logged skipped', async (t) => {
  (globalThis as { __probeOutcome?: string }).__probeOutcome = 'running';
  const job = await createJob({ schedule: { kind: 'every', every_seconds: 600 }, config: { mode: 'follow' } });
  const due = Date.parse(job.next_run_at);
  await fireAt(new Date(due + 100));
  await eventually(async () => (await runsOf(job.id))[0]?.status === 'running');
  await fireAt(new Date(due + 600_000 + 100));
  const runs = await runsOf(job.id);
  t.deepEqual(runs.map((r) => r.status), ['skipped', 'running']);
  t.regex(JSON.stringify(runs[0].detail), /overlap: skip/);
  t.is((await call(`/api/v1/jobs/${job.id}/run_now`, { method: 'POST', json: {} })).status, 409);
  (globalThis as { __probeOutcome?: string }).__probeOutcome = 'succeeded';
  const done = await eventually(async () => {
    await k.kernel.broker.call('jobs.recover', {});
    return (await runsOf(job.id))[1]?.status === 'succeeded';
  });
  t.true(done);
});

test.serial('overlap queue: the fire waits behind the running one and runs after it', async (t) => {
  (globalThis as { __probeOutcome?: string }).__probeOutcome = 'running';
  const job = await createJob({ schedule: { kind: 'every', every_seconds: 600 }, config: { mode: 'follow' }, overlap: 'queue' });
  const due = Date.parse(job.next_run_at);
  await fireAt(new Date(due + 100));
  await eventually(async () => (await runsOf(job.id))[0]?.status === 'running');
  await fireAt(new Date(due + 600_000 + 100));
  const waiting = await runsOf(job.id);
  t.deepEqual(waiting.map((r) => r.status), ['queued', 'running']);
  (globalThis as { __probeOutcome?: string }).__probeOutcome = 'succeeded';
  // the sweeper settles the first, which dispatches the second; that one is followed too
  await eventually(async () => {
    await k.kernel.broker.call('jobs.recover', {});
    return (await runsOf(job.id)).every((r) => r.status === 'succeeded');
  });
  t.deepEqual((await runsOf(job.id)).map((r) => r.status), ['succeeded', 'succeeded']);
});

test.serial('consecutive failures count, and at the threshold the job pauses with the reason; a success resets', async (t) => {
  const job = await createJob({ schedule: { kind: 'every', every_seconds: 600 }, config: { mode: 'fail' } });
  for (let i = 1; i <= 2; i++) {
    const run = (await call(`/api/v1/jobs/${job.id}/run_now`, { method: 'POST', json: {} })).body;
    await eventually(async () => (await call(`/api/v1/jobs/${job.id}/runs/${run.id}`)).body.status === 'failed');
  }
  const paused = (await call(`/api/v1/jobs/${job.id}`)).body;
  t.like(paused, { enabled: false, status: 'paused', consecutive_failures: 2, next_run_at: null });
  t.regex(paused.paused_reason, /paused after 2 failed runs in a row.*failed on purpose/);
  await call(`/api/v1/jobs/${job.id}`, { method: 'PUT', json: { config: { mode: 'succeed' }, enabled: true } });
  const run = (await call(`/api/v1/jobs/${job.id}/run_now`, { method: 'POST', json: {} })).body;
  await eventually(async () => (await call(`/api/v1/jobs/${job.id}/runs/${run.id}`)).body.status === 'succeeded');
  t.like((await call(`/api/v1/jobs/${job.id}`)).body, { enabled: true, consecutive_failures: 0, attention: false });
});

test.serial('a one-shot with delete_after_run is gone once its run is logged', async (t) => {
  const at = new Date(Date.now() + 3 * H);
  const job = await createJob({ schedule: { kind: 'at', at: at.toISOString() }, delete_after_run: true });
  await fireAt(new Date(at.getTime() + 500));
  await eventually(async () => (await call(`/api/v1/jobs/${job.id}`)).status === 404);
  const left = await k.kernel.stores!.db.query('SELECT count(*)::int AS n FROM job_runs WHERE job_id = $1', { bind: [job.id], type: QueryTypes.SELECT });
  t.deepEqual(left, [{ n: 0 }]);
});

test.serial('jobs.prepareFire plans a pass ahead without firing or moving anything', async (t) => {
  const job = await createJob({ schedule: { kind: 'every', every_seconds: 600 } });
  const answer = (await k.kernel.broker.call('jobs.prepareFire', {})) as { prepare_ms: number };
  t.is(typeof answer.prepare_ms, 'number');
  t.deepEqual(await runsOf(job.id), []);
  t.is((await call(`/api/v1/jobs/${job.id}`)).body.next_run_at, job.next_run_at);
  t.is((await call(`/api/v1/jobs/${job.id}`, { method: 'DELETE' })).status, 204);
});

test.serial('a pass takes every due job once, in one transaction, whatever the batch', async (t) => {
  const jobs = await Promise.all(Array.from({ length: 30 }, () => createJob({ schedule: { kind: 'every', every_seconds: 7200 } })));
  const latest = Math.max(...jobs.map((j) => Date.parse(j.next_run_at)));
  const [a, b] = await Promise.all([
    k.kernel.broker.call('jobs.fireDue', { now: new Date(latest + 10).toISOString(), limit: 7 }),
    k.kernel.broker.call('jobs.fireDue', { now: new Date(latest + 10).toISOString(), limit: 7 }),
  ]) as { runs: { run_id: string }[] }[];
  let rest = 0;
  for (;;) {
    const more = (await k.kernel.broker.call('jobs.fireDue', { now: new Date(latest + 10).toISOString(), limit: 7 })) as { runs: unknown[]; more: boolean };
    rest += more.runs.length;
    if (!more.more) break;
  }
  const ids = jobs.map((j) => j.id);
  const rows = await k.kernel.stores!.db.query<{ job_id: string; n: number }>('SELECT job_id, count(*)::int AS n FROM job_runs WHERE job_id = ANY($1::uuid[]) GROUP BY job_id', { bind: [ids], type: QueryTypes.SELECT });
  t.is(rows.length, 30);
  t.true(rows.every((r) => r.n === 1));
  t.is(a.runs.length + b.runs.length + rest, 30);
});
