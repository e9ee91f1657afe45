import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { QueryTypes, Sequelize } from 'sequelize';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { eventually } from './helpers/eventually.ts';
import { jobsPackagesRoot } from './helpers/jobs-kernel.ts';
import { killWorkerProcess, startWorkerProcess } from './helpers/worker-process.ts';

/**
 * Real processes on one PostgreSQL database and one Redis: an api node (this process) and
 * control+work nodes as child processes, each running the scheduler.
 */
const pkgs = jobsPackagesRoot();
const namespace = `jobs-cluster-${process.pid}`;
let db: TestDatabase;
let kernel: TestKernel;
let sql: Sequelize;
const children: ChildProcess[] = [];
const dataDirs: string[] = [];
const shared = () => ({ DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:6379', NAMESPACE: namespace, RATE_LIMIT_PER_MINUTE: '0' });
const control = (extra: Record<string, string> = {}) =>
  startWorkerProcess(pkgs.root, { ...shared(), ROLES: 'control,work', SCHEDULER_TICK_SECONDS: '1', SCHEDULER_SWEEP_SECONDS: '1', JOBS_RUN_LEASE_SECONDS: '2', ...extra }, dataDirs).then((c) => (children.push(c), c));

test.before(async () => {
  db = await createTestDatabase('jobs_cluster');
  kernel = await startTestKernel({ roots: [pkgs.root], env: { ...shared(), ROLES: 'api' } });
  sql = new Sequelize(db.url, { logging: false });
});
test.after.always(async () => {
  for (const c of children) await killWorkerProcess(c);
  await kernel?.close();
  await sql?.close();
  await db?.drop();
  pkgs.remove();
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

const T = 'owner-token';
const call = (path: string, init: Parameters<typeof api>[2] = {}) => api(kernel.apiUrl, path, { token: T, ...init });
const rows = <R extends object>(q: string, bind: unknown[] = []) => sql.query<R>(q, { bind, type: QueryTypes.SELECT });

test.serial('two control nodes racing: every due job fires exactly once', async (t) => {
  const [a, b] = await Promise.all([control(), control()]);
  const at = new Date(Date.now() + 5000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 60; i++) {
    const res = await call('/api/v1/jobs', { method: 'POST', json: { name: `race ${i}`, executor: 'probe', config: { mode: 'succeed' }, schedule: { kind: 'at', at } } });
    t.is(res.status, 201, res.text);
    ids.push(res.body.id);
  }
  const done = await eventually(async () => (await rows<{ n: number }>(`SELECT count(*)::int AS n FROM job_runs WHERE job_id = ANY($1::uuid[]) AND status = 'succeeded'`, [ids]))[0].n === 60, { timeoutMs: 60_000 });
  t.true(done);
  const perJob = await rows<{ job_id: string; n: number }>('SELECT job_id, count(*)::int AS n FROM job_runs WHERE job_id = ANY($1::uuid[]) GROUP BY job_id', [ids]);
  t.is(perJob.length, 60);
  t.true(perJob.every((r) => r.n === 1), JSON.stringify(perJob.filter((r) => r.n !== 1)));
  await Promise.all([killWorkerProcess(a), killWorkerProcess(b)]);
});

test.serial('a kill mid-run: the run is failed with the reason, or started again when its executor is restartable; never left running', async (t) => {
  const first = await control();
  const plain = (await call('/api/v1/jobs', { method: 'POST', json: { name: 'held', executor: 'probe', config: { mode: 'hold' }, schedule: { kind: 'every', every_seconds: 86400 } } })).body;
  const again = (await call('/api/v1/jobs', { method: 'POST', json: { name: 'held once', executor: 'probe_restartable', config: { mode: 'hold_first' }, schedule: { kind: 'every', every_seconds: 86400 } } })).body;
  const r1 = (await call(`/api/v1/jobs/${plain.id}/run_now`, { method: 'POST', json: {} })).body;
  const r2 = (await call(`/api/v1/jobs/${again.id}/run_now`, { method: 'POST', json: {} })).body;
  const bothRunning = await eventually(async () => (await rows<{ n: number }>(`SELECT count(*)::int AS n FROM job_runs WHERE id = ANY($1::uuid[]) AND status = 'running'`, [[r1.id, r2.id]]))[0].n === 2, { timeoutMs: 30_000 });
  t.true(bothRunning);
  await killWorkerProcess(first);
  await control(); // its sweeper finds the runs whose lease lapsed
  const outcome = async (jobId: string, runId: string) =>
    eventually(async () => {
      const r = (await call(`/api/v1/jobs/${jobId}/runs/${runId}`)).body;
      return ['succeeded', 'failed'].includes(r.status) ? r : undefined;
    }, { timeoutMs: 60_000 });
  const failed = await outcome(plain.id, r1.id);
  t.like(failed, { status: 'failed', error: { code: 'WORKER_LOST' } });
  t.regex(failed.error.message, /not started again/);
  const restarted = await outcome(again.id, r2.id);
  t.like(restarted, { status: 'succeeded', attempts: 2 });
});
