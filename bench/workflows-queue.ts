/**
 * Queued workflow runs through the work queue: PostgreSQL + Redis (bull), a five-step workflow
 * (trigger -> transform x3 -> end), every receipt committed before the next step starts.
 * For each worker concurrency: commit and enqueue N runs with no worker running, then start a
 * worker node (ROLES=work, WORKER_WORK_CONCURRENCY=c) in this process and time the drain.
 * Reports runs/s, the engine's overhead per step (wall time from "ready" to "receipt committed"
 * minus the time inside the node's execute call; p50/p99) and where the time goes per phase.
 *
 *   node --import tsx bench/workflows-queue.ts [--runs 10000] [--runs-c1 1500] [--concurrency 1,4]
 *        [--env KEY=VALUE ...]
 *
 * Each level also runs a bare bull + pg loop with the same commit pattern (workflows-queue-
 * reference.ts) right after, in the same database, so the figure can be read against what
 * the machine does at that moment. Target: >= 400 runs/s at concurrency 4; overhead per step
 * < 1 ms at p50.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { Sequelize, QueryTypes } from 'sequelize';
import { loadConfig } from '../config/load.ts';
import { startKernel, type Kernel } from '../kernel/bootstrap.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { mean, percentile, round } from './lib/stats.ts';
import { EngineProfile } from '../plugins/workflows/engine/profile.ts';
import type { FlushStats } from '../kernel/db/group-commit.ts';
import { newRunOf } from '../plugins/workflows/run-launch.ts';
import type { WorkflowsService } from '../plugins/workflows/service.ts';
import { referenceLoop } from './workflows-queue-reference.ts';

const ROOT = resolve(import.meta.dirname, '..');
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '10000' }, 'runs-c1': { type: 'string', default: '1500' }, concurrency: { type: 'string', default: '1,4' }, env: { type: 'string', multiple: true, default: [] } },
});
/** --env KEY=VALUE: settings for both kernel nodes (WORKFLOW_COMMIT_SLOTS=2, say) */
const extraEnv = Object.fromEntries((args.env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const levels = String(args.concurrency).split(',').map(Number);

const FIVE_STEPS = {
  name: 'five steps',
  steps: [
    { id: 'start', type: 'trigger', next: ['a'] },
    { id: 'a', type: 'transform', config: { set: { n: '{{trigger.n}}', stage: 'a' } }, next: ['b'] },
    { id: 'b', type: 'transform', config: { set: { n: '{{a.output.n}}', stage: 'b' } }, next: ['c'] },
    { id: 'c', type: 'transform', config: { set: { n: '{{b.output.n}}', stage: 'c' } }, next: ['done'] },
    { id: 'done', type: 'end', config: {} },
  ],
};

/** A work folder holding the package root (test identity provider, workflows, every node type) and data dirs. */
function packageRoot(work: string): string {
  const root = join(work, 'packages');
  mkdirSync(root);
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
  symlinkSync(join(ROOT, 'plugins', 'workflows'), join(root, 'workflows'), 'dir');
  for (const n of readdirSync(join(ROOT, 'nodes'))) symlinkSync(join(ROOT, 'nodes', n), join(root, `node-${n}`), 'dir');
  return root;
}

async function node(root: string, env: Record<string, string>): Promise<Kernel> {
  const dataDir = join(root, '..', `data-${Math.random().toString(36).slice(2)}`); // inside the bench's own work folder
  mkdirSync(dataDir);
  const config = loadConfig({ API_PORT: '0', WEB_PORT: '0', API_HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', HOT_RELOAD: 'false', RATE_LIMIT_PER_MINUTE: '0', REDIS_URL, ...env }, join(dataDir, '.env'));
  return startKernel(config, { roots: [root] });
}

const workflows = (k: Kernel) => k.broker.getLocalService('workflows') as unknown as WorkflowsService;

async function level(concurrency: number, runs: number, dbUrl: string, root: string): Promise<Record<string, unknown>> {
  const namespace = `benchwf${process.pid}c${concurrency}`;
  const env = { DATABASE_URL: dbUrl, NAMESPACE: namespace, WORKER_WORK_CONCURRENCY: String(concurrency), ...extraEnv };
  // 1. commit and queue every run, with no worker anywhere
  const producer = await node(root, { ...env, ROLES: 'api' });
  const svc = workflows(producer);
  const user = { id: 'u-owner', entity_id: 'e-1', role: 'owner', email: 'owner@one.test' };
  const created = (await producer.broker.call('workflows.createDefinition', FIVE_STEPS, { meta: { user } })) as { id: string };
  const definition = await svc.definitions.get('e-1', created.id);
  const q0 = performance.now();
  for (let i = 0; i < runs; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, runs - i) }, (_, j) => svc.engine.enqueueRun(newRunOf(definition, { owner_id: 'u-owner', trigger_type: 'manual', trigger: { n: i + j } }))));
  }
  const enqueueSeconds = (performance.now() - q0) / 1000;
  await producer.stop();

  // 2. a worker node drains the queue
  const sql = new Sequelize(dbUrl, { dialect: 'postgres', logging: false });
  const completed = async () => Number(((await sql.query("SELECT count(*) AS n FROM workflow_runs WHERE workflow_id = $1 AND status = 'completed'", { bind: [created.id], type: QueryTypes.SELECT })) as { n: string }[])[0].n);
  const worker = await node(root, { ...env, ROLES: 'work' });
  const profile = new EngineProfile();
  workflows(worker).engine.profile = profile;
  const t0 = performance.now();
  const c0 = await completed();
  let done = c0;
  while (done < runs) {
    await new Promise((r) => setTimeout(r, 200));
    done = await completed();
  }
  const seconds = (performance.now() - t0) / 1000;
  await worker.stop();
  const failed = Number(((await sql.query("SELECT count(*) AS n FROM workflow_runs WHERE workflow_id = $1 AND status <> 'completed'", { bind: [created.id], type: QueryTypes.SELECT })) as { n: string }[])[0].n);
  const receipts = Number(((await sql.query('SELECT count(*) AS n FROM workflow_step_receipts r JOIN workflow_runs w ON w.id = r.run_id WHERE w.workflow_id = $1', { bind: [created.id], type: QueryTypes.SELECT })) as { n: string }[])[0].n);
  await sql.close();
  const redis = new Redis(`${REDIS_URL}/2`);
  const keys = await redis.keys(`${namespace}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();

  const referenceRunsPerSec = await referenceLoop(dbUrl, REDIS_URL, `${namespace}ref`, runs, concurrency);
  const refKeys = await (async () => {
    const r = new Redis(`${REDIS_URL}/2`);
    const k = await r.keys(`${namespace}ref:*`);
    if (k.length) await r.del(...k);
    r.disconnect();
    return k.length;
  })();
  void refKeys;
  const steps = Math.max(1, profile.counts.steps);
  const perStep = Object.fromEntries(Object.entries(profile.totals).map(([k, v]) => [k, round((v / steps) * 1000, 1)]));
  const result = {
    concurrency,
    runs,
    measuredRuns: runs - c0,
    runsPerSec: round((runs - c0) / seconds, 0),
    referenceRunsPerSec: round(referenceRunsPerSec, 0),
    ratioToReference: round((runs - c0) / seconds / referenceRunsPerSec, 3),
    enqueuePerSec: round(runs / enqueueSeconds, 0),
    notCompleted: failed,
    receipts,
    overheadPerStepMs: { p50: round(percentile(profile.overheadMs, 50), 3), p99: round(percentile(profile.overheadMs, 99), 3) },
    executePerStepMs: { p50: round(percentile(profile.executeMs, 50), 3), p99: round(percentile(profile.executeMs, 99), 3) },
    phaseMicrosPerStep: perStep,
    commitsPerRun: round(profile.counts.commits / Math.max(1, profile.counts.runs), 2),
    // a step commit's time: waiting for the group commit's slot, then the statement's round trip
    stepCommitStatements: commitSplit(profile.flushes.step_commit),
  };
  console.log(
    `concurrency ${concurrency}: ${result.runsPerSec} runs/s over ${result.measuredRuns} runs (bare bull+pg loop, same run: ${result.referenceRunsPerSec} runs/s, ratio ${result.ratioToReference}; enqueue ${result.enqueuePerSec}/s); ` +
      `overhead/step p50 ${result.overheadPerStepMs.p50} ms p99 ${result.overheadPerStepMs.p99} ms; execute/step p50 ${result.executePerStepMs.p50} ms; ` +
      `per step (us): ${JSON.stringify(perStep)}; commits/run ${result.commitsPerRun}; receipts ${receipts}; not completed ${failed}; ` +
      `step-commit statements: ${JSON.stringify(result.stepCommitStatements)}`,
  );
  return result;
}

/** The group commit's statements: how many items each carried, the slot wait of the oldest, the round trip. */
function commitSplit(flushes: FlushStats[]): { statements: number; itemsMean: number; waitP50Ms: number; roundTripP50Ms: number; roundTripP99Ms: number } {
  const round3 = (n: number) => round(n, 3);
  return {
    statements: flushes.length,
    itemsMean: round(mean(flushes.map((f) => f.size)), 2),
    waitP50Ms: round3(percentile(flushes.map((f) => f.waitedMs), 50)),
    roundTripP50Ms: round3(percentile(flushes.map((f) => f.flushMs), 50)),
    roundTripP99Ms: round3(percentile(flushes.map((f) => f.flushMs), 99)),
  };
}

async function main(): Promise<void> {
  const dbName = `bench_wf_queue_${process.pid}`;
  createDatabase(dbName);
  const work = mkdtempSync(join(tmpdir(), 'bench-wf-'));
  const root = packageRoot(work);
  try {
    const results = [];
    for (const c of levels) results.push(await level(c, c === 1 ? Number(args['runs-c1']) : Number(args.runs), databaseUrl(dbName), root));
    const c4 = results.find((r) => r.concurrency === 4);
    console.log(JSON.stringify({ bench: 'workflows-queue', results, target: { runsPerSecAtC4: 400, overheadP50Ms: 1 }, met: c4 ? (c4.runsPerSec as number) >= 400 : null }));
  } finally {
    dropDatabase(dbName);
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
