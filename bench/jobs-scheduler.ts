/**
 * The scheduler under a burst: 10,000 enabled jobs of which 1,000 are due in the same second.
 * A control+work node (in this process) on PostgreSQL and Redis (bull queues) with the real
 * scheduler and its timer; jobs use the test probe executor (it succeeds at once). Figures:
 * time from the due instant until all 1,000 runs are committed and enqueued (target < 1 s),
 * and the fire lag per run, enqueue time minus scheduled time (p50, p99, max; target p99 < 1 s).
 * Rounds: --rounds 3 (each a fresh burst on the same 10,000 jobs). --idle 15: each burst comes
 * after that many quiet seconds, as cron bursts on minute boundaries do: the database pool has
 * closed its idle connections by then (after 10 s), as between real bursts (default 0: 2 s).
 *
 *   node --import tsx bench/jobs-scheduler.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { startKernel } from '../kernel/bootstrap.ts';
import { jobsPackagesRoot } from '../test/helpers/jobs-kernel.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { percentile, round } from './lib/stats.ts';
import type { Scheduler } from '../plugins/scheduler/scheduler.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, jobs: { type: 'string', default: '10000' }, due: { type: 'string', default: '1000' }, idle: { type: 'string', default: '0' } } });
const TOTAL = Number(args.jobs);
const DUE = Number(args.due);
const dbName = `bench_jobs_${process.pid}`;
createDatabase(dbName);
const pkgs = jobsPackagesRoot();
const dataDir = mkdtempSync(join(tmpdir(), 'wao-bench-jobs-'));
const config = loadConfig(
  { DATABASE_URL: databaseUrl(dbName), REDIS_URL: 'redis://127.0.0.1:6379', NAMESPACE: `bench-jobs-${process.pid}`, ROLES: 'api,control,work', API_PORT: '0', WEB_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error', HOT_RELOAD: 'false', RATE_LIMIT_PER_MINUTE: '0', SCHEDULER_SWEEP_SECONDS: '3600' },
  join(dataDir, '.env'),
);
const kernel = await startKernel(config, { roots: [pkgs.root] });
const db = kernel.stores!.db;
const scheduler = (kernel.broker.getLocalService('scheduler') as unknown as { scheduler: Scheduler }).scheduler;

try {
  // 10,000 enabled jobs, created as the API would store them (probe executor, cron every minute far away)
  await db.query(
    `INSERT INTO jobs (id, entity_id, name, schedule_kind, every_seconds, timezone, anchor_at, executor, config, enabled, next_run_at, created_by)
     SELECT gen_random_uuid(), 'e-1', 'bench ' || g, 'every', 86400, 'UTC', now(), 'probe', '{"mode":"succeed"}', true, now() + interval '1 day', 'u-owner' FROM generate_series(1, $1) g`,
    { bind: [TOTAL] },
  );
  const results: { firstEnqueuedMs: number; allEnqueuedMs: number; p50: number; p99: number; max: number }[] = [];
  for (let round_ = 1; round_ <= Number(args.rounds); round_++) {
    const at = new Date(Math.ceil((Date.now() + Math.max(2000, Number(args.idle) * 1000)) / 1000) * 1000); // the same second for all of them
    await db.query(`UPDATE jobs SET next_run_at = $1, anchor_at = $1 WHERE id IN (SELECT id FROM jobs ORDER BY id LIMIT $2 OFFSET $3)`, { bind: [at, DUE, ((round_ - 1) * DUE) % TOTAL] });
    const before = scheduler.fired.length;
    const passesBefore = scheduler.passes.length;
    scheduler.jobsChanged(at.toISOString()); // what the jobs.changed broadcast does after a save
    while (scheduler.fired.slice(before).flat().filter((r) => r.scheduled_for === at.toISOString()).length < DUE) await new Promise((r) => setTimeout(r, 50));
    const runs = scheduler.fired.slice(before).flat().filter((r) => r.scheduled_for === at.toISOString());
    const lags = runs.map((r) => Date.parse(r.enqueued_at) - at.getTime());
    const result = { firstEnqueuedMs: Math.min(...lags), allEnqueuedMs: Math.max(...lags), p50: percentile(lags, 50), p99: percentile(lags, 99), max: Math.max(...lags) };
    results.push(result);
    const passes = scheduler.passes.slice(passesBefore);
    console.log(`  passes: ${passes.map((p) => `${p.claimed} claimed: commit ${p.claim_ms} ms, enqueue ${p.enqueue_ms} ms`).join('; ')}`);
    console.log(`round ${round_}: ${runs.length} due at ${at.toISOString()} of ${TOTAL} enabled; first enqueued after ${result.firstEnqueuedMs} ms, all after ${result.allEnqueuedMs} ms; fire lag p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms`);
    // let the runs drain before the next burst
    for (;;) {
      const [row] = (await db.query(`SELECT count(*)::int AS n FROM job_runs WHERE status IN ('queued', 'running')`, { plain: false })) as [{ n: number }[], unknown];
      if (row[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const worst = { allEnqueuedMs: Math.max(...results.map((r) => r.allEnqueuedMs)), p99: Math.max(...results.map((r) => r.p99)) };
  console.log(`worst round: all ${DUE} enqueued after ${worst.allEnqueuedMs} ms (target < 1000), fire lag p99 ${worst.p99} ms (target < 1000)`);
  console.log(JSON.stringify({ bench: 'jobs-scheduler', jobs: TOTAL, due: DUE, idle_s: Number(args.idle), rounds: results.map((r) => ({ ...r, p50: round(r.p50), p99: round(r.p99) })), worst }));
} finally {
  await kernel.stop();
  dropDatabase(dbName);
  pkgs.remove();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
