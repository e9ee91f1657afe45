import test from 'ava';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Redis } from 'ioredis';
import { Sequelize } from 'sequelize';
import { api } from './helpers/kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { spawnKernel, type KernelProcess } from './helpers/process.ts';
import { startLocalServer, type LocalServer } from './workflows-local-server.ts';

/**
 * `kill -9` of the whole service with runs pending, running and waiting on a timer, then a
 * start on the same data: every run finishes, and no step that had completed runs again.
 * Leases and the sweep are set to ten minutes, so only the recovery at start can move the
 * runs on (the sweep would give the pending ones ten leases of grace on top).
 */

const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUNS = 20;
const cleanups: (() => unknown)[] = [];
let server: LocalServer;

test.before(async () => {
  server = await startLocalServer();
});

test.after.always(async () => {
  for (const c of cleanups.reverse()) await c();
  await server?.close();
});

type Receipt = { run_id: string; step_id: string; status: string; started_ms: number };
type RowsAtKill = { runs: Map<string, string>; completed: Receipt[] };

async function kernel(env: Record<string, string>): Promise<KernelProcess> {
  const k = await spawnKernel({
    CAPABILITY_PATHS: FIXTURES,
    WORKFLOW_HTTP_ALLOW: '127.0.0.1/32',
    WORKFLOW_LEASE_SECONDS: '600',
    WORKFLOW_SWEEP_SECONDS: '600',
    // the 2 s timer pauses the run (a delayed queue entry) instead of sleeping in the worker
    WORKFLOW_INLINE_WAIT_SECONDS: '1',
    WORKER_WORK_CONCURRENCY: '4',
    ...env,
  });
  cleanups.push(() => k.cleanup());
  if (!(await k.waitReady(120_000))) throw new Error(`the kernel did not get ready:\n${k.output()}`);
  return k;
}

/** Starts RUNS runs of `trigger -> a -> slow -> wait (timer 2 s) -> b`, each step calling its own path. */
async function startRuns(k: KernelProcess, label: string): Promise<string[]> {
  const wf = await api(k.apiUrl, '/api/v1/workflows', {
    method: 'POST',
    token: 'owner-token',
    json: {
      name: `restart ${label}`,
      steps: [
        { id: 'start', type: 'trigger', next: ['a'] },
        { id: 'a', type: 'http', config: { url: `${server.url}/${label}/a/{{trigger.n}}` }, next: ['slow'] },
        { id: 'slow', type: 'http', config: { url: `${server.url}/slow/${label}/{{trigger.n}}?ms=1500` }, next: ['nap'] },
        { id: 'nap', type: 'wait', config: { wait_type: 'timer', seconds: 2 }, next: ['b'] },
        { id: 'b', type: 'http', config: { url: `${server.url}/${label}/b/{{trigger.n}}` }, next: [] },
      ],
    },
  });
  if (wf.status !== 201) throw new Error(wf.text);
  const ids: string[] = [];
  for (let n = 0; n < RUNS; n++) {
    const run = await api(k.apiUrl, `/api/v1/workflows/${wf.body.id}/run`, { method: 'POST', token: 'owner-token', json: { input: { n } } });
    if (run.status !== 202) throw new Error(run.text);
    ids.push(run.body.run_id);
  }
  return ids;
}

/** The path of each http step of run `n`, as the local server counts it. */
function pathOf(label: string, step: string, n: number): string {
  return step === 'slow' ? `/slow/${label}/${n}` : `/${label}/${step}/${n}`;
}

/** Waits until some runs are in their slow step and some past it, then kills the kernel with SIGKILL. */
async function killMidway(k: KernelProcess, label: string): Promise<Map<string, number>> {
  const slowArrivals = () => [...server.hits.keys()].filter((p) => p.startsWith(`/slow/${label}/`)).length;
  await eventually(async () => slowArrivals() >= 6, { timeoutMs: 120_000, intervalMs: 20 });
  k.kill('SIGKILL');
  await k.exited;
  return new Map(server.hits);
}

const ROWS_SQL = {
  runs: 'SELECT id, status FROM workflow_runs',
  receipts: "SELECT run_id, step_id, status, floor(extract(epoch FROM started_at) * 1000)::float8 AS started_ms FROM workflow_step_receipts WHERE status = 'completed'",
};

function rowsAtKill(runs: { id: string; status: string }[], receipts: Receipt[]): RowsAtKill {
  return { runs: new Map(runs.map((r) => [r.id, r.status])), completed: receipts };
}

/** After the restart: every run completes; a step completed at the kill kept its receipt and was not called again. */
async function assertResumed(t: import('ava').ExecutionContext, k: KernelProcess, label: string, ids: string[], atKill: RowsAtKill, hitsAtKill: Map<string, number>): Promise<void> {
  const statuses = [...atKill.runs.values()];
  t.true(statuses.includes('pending'), `some runs were pending at the kill: ${statuses}`);
  t.true(statuses.includes('running'), `some runs were running at the kill: ${statuses}`);
  let last: any[] = []; // run views, as the API answers them
  const finished = await eventually(async () => {
    last = await Promise.all(ids.map(async (id) => (await api(k.apiUrl, `/api/v1/workflows/runs/${id}`, { token: 'owner-token' })).body));
    return last.every((r) => r?.status === 'completed' || r?.status === 'failed') ? last : undefined;
  }, { timeoutMs: 120_000, intervalMs: 250 });
  t.truthy(finished, 'every run finished after the restart');
  if (!finished) {
    // what a failure here needs to be understood: where each unfinished run stands, and what the service said
    for (const [n, r] of last.entries()) if (r?.status !== 'completed') t.log(`run ${n}: ${JSON.stringify({ status: r?.status, recoveries: r?.recoveries, steps: r?.steps?.map((s: { step_id: string; status: string }) => `${s.step_id}:${s.status}`) })}`);
    t.log(k.output().slice(-6000));
    return;
  }
  for (const [n, run] of finished.entries()) {
    t.is(run.status, 'completed', JSON.stringify(run.error));
    for (const step of ['a', 'slow', 'b']) t.true((server.hits.get(pathOf(label, step, n)) ?? 0) >= 1, `run ${n} called ${step}`);
    for (const done of atKill.completed.filter((r) => r.run_id === run.id)) {
      const now = run.steps.find((s: { step_id: string }) => s.step_id === done.step_id);
      t.truthy(now, `run ${n} still has the receipt of ${done.step_id}`);
      t.is(Date.parse(now.started_at), Number(done.started_ms), `run ${n}: the receipt of ${done.step_id}, completed before the kill, was kept`);
      if (done.step_id === 'start' || done.step_id === 'nap') continue;
      const path = pathOf(label, done.step_id, n);
      t.is(server.hits.get(path), hitsAtKill.get(path), `run ${n}: ${done.step_id}, completed before the kill, was not called again`);
    }
  }
}

test.serial('embedded defaults: after kill -9 and a start on the same DATA_DIR, every pending, running and timed run finishes, no completed step repeats', async (t) => {
  t.timeout(600_000); // two cold starts of the whole service, slow on a busy machine
  const dataDir = mkdtempSync(join(tmpdir(), 'wao-restart-'));
  const snapshot = mkdtempSync(join(tmpdir(), 'wao-restart-rows-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => rmSync(snapshot, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' };
  const t0 = Date.now();
  const first = await kernel(env);
  t.log('first ready', Date.now() - t0);
  const ids = await startRuns(first, 'embedded');
  t.log('runs started', Date.now() - t0);
  const hitsAtKill = await killMidway(first, 'embedded');
  t.log('killed', Date.now() - t0);
  // the rows as the kill left them, read from a copy while the service starts again on the original
  cpSync(dataDir, snapshot, { recursive: true });
  const restarted = kernel(env);
  const db = await PGlite.create({ dataDir: join(snapshot, 'pg') });
  const atKill = rowsAtKill((await db.query<{ id: string; status: string }>(ROWS_SQL.runs)).rows, (await db.query<Receipt>(ROWS_SQL.receipts)).rows);
  await db.close();
  t.log('snapshot read', Date.now() - t0);
  const second = await restarted;
  t.log('second ready', Date.now() - t0);
  t.notRegex(second.output(), /is in use by process/);
  await assertResumed(t, second, 'embedded', ids, atKill, hitsAtKill);
  t.log('resumed', Date.now() - t0, [...atKill.runs.values()].join(','));
});

test.serial('PostgreSQL and Redis, Redis having lost its jobs: after kill -9 and a start, every pending, running and timed run finishes, no completed step repeats', async (t) => {
  t.timeout(600_000); // two cold starts of the whole service, slow on a busy machine
  const database = await createTestDatabase('wf_restart');
  cleanups.push(() => database.drop());
  const namespace = `wfrestart${process.pid}`;
  const env = { DATABASE_URL: database.url, REDIS_URL, NAMESPACE: namespace };
  const redis = new Redis(`${REDIS_URL}/2`);
  const forgetJobs = async () => {
    const keys = await redis.keys(`${namespace}:*`);
    if (keys.length) await redis.del(...keys);
    return keys.length;
  };
  cleanups.push(async () => {
    await forgetJobs();
    redis.disconnect();
  });
  const first = await kernel(env);
  const ids = await startRuns(first, 'pg');
  const hitsAtKill = await killMidway(first, 'pg');
  t.true((await forgetJobs()) > 0, 'the queue held jobs, now lost');
  const sql = new Sequelize(database.url, { dialect: 'postgres', logging: false });
  const [runs] = await sql.query(ROWS_SQL.runs);
  const [receipts] = await sql.query(ROWS_SQL.receipts);
  await sql.close();
  const second = await kernel(env);
  await assertResumed(t, second, 'pg', ids, rowsAtKill(runs as { id: string; status: string }[], receipts as Receipt[]), hitsAtKill);
});
