/**
 * What an Idempotency-Key costs: POST /api/v1/tasks with a fresh key per request (B) against the
 * same create without one (A), windows alternated A-B-B-A, on the machine's PostgreSQL. Target
 * (issue 20): p50 with a key within 10% of without. Also shown: a replay (the same key again,
 * answered from the store without running the action) and a bare node:http server answering a
 * POST in the same run, as the floor.
 *
 *   node --import tsx bench/idempotency.ts [--windows 8] [--seconds 4] [--concurrency 1] [--warmup 2]
 *
 * Latency is timed per request in this process (fetch over keep-alive), so both sides pay the
 * same client cost; the kernel (bench/servers/tasks-kernel.ts) and the bare server run detached.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from './lib/kernel-process.ts';
import { startTasksKernel } from './lib/tasks-kernel.ts';
import { backendPids, createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { processCpuMs } from './lib/cpu-usage.ts';
import { freePort, pathWithThisNode, startDetached, stopAll, waitForStatus } from './lib/processes.ts';
import { abbaOrder, median, percentile, round } from './lib/stats.ts';

const TOKEN = 'owner-token';
const { values: args } = parseArgs({
  options: {
    windows: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '2' },
  },
});
const windows = Number(args.windows);
const seconds = Number(args.seconds);
const concurrency = Number(args.concurrency);

type Headers = () => Record<string, string>;
interface Window { p50Ms: number; p99Ms: number; ok: number; failed: number; kernelCpuUs: number; databaseCpuUs: number }

/** CPU ms used so far by the kernel and by the database's backends (a backend gone meanwhile reads 0). */
function cpuSnapshot(kernelPid: number | undefined, database: string | undefined): { kernel: number; database: Map<number, number> } {
  const read = (pid: number) => {
    try {
      return processCpuMs(pid);
    } catch {
      return 0;
    }
  };
  return { kernel: kernelPid ? read(kernelPid) : 0, database: new Map((database ? backendPids(database) : []).map((pid) => [pid, read(pid)])) };
}

/** `concurrency` loops posting `body` to `url` for `durationSec`; every answer's latency in ms. */
async function window(url: string, body: string, headers: Headers, durationSec: number, expect: number, kernelPid?: number, database?: string): Promise<Window> {
  const latencies: number[] = [];
  const before = cpuSnapshot(kernelPid, database);
  let failed = 0;
  const end = performance.now() + durationSec * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const started = performance.now();
        const res = await fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}`, ...headers() } });
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        if (res.status !== expect) failed++;
      }
    }),
  );
  const after = cpuSnapshot(kernelPid, database);
  let databaseMs = 0;
  for (const [pid, ms] of after.database) databaseMs += ms - (before.database.get(pid) ?? 0);
  const perRequestUs = (ms: number) => round((ms * 1000) / Math.max(1, latencies.length), 1);
  return { p50Ms: round(percentile(latencies, 50), 3), p99Ms: round(percentile(latencies, 99), 3), ok: latencies.length - failed, failed, kernelCpuUs: perRequestUs(after.kernel - before.kernel), databaseCpuUs: perRequestUs(databaseMs) };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-idem-'));
  const dbName = `bench_idem_${process.pid}_${Date.now()}`;
  let created = false;
  try {
    createDatabase(dbName);
    created = true;
    const { apiUrl, proc } = await startTasksKernel(work, { DATABASE_URL: databaseUrl(dbName) });

    const body = JSON.stringify({ title: 'Bench task', description: 'Made by bench/idempotency.ts', priority: 3 });
    const url = `${apiUrl}/api/v1/tasks`;
    const sample = await fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` } });
    writeFileSync(join(work, 'body.json'), Buffer.from(await sample.arrayBuffer()));
    const barePort = await freePort();
    const bare = startDetached('bare', process.execPath, ['--import', 'tsx', 'bench/servers/bare-json.ts'], { env: { ...process.env, PATH: pathWithThisNode(), PORT: String(barePort), BODY_FILE: join(work, 'body.json') }, cwd: PROJECT_ROOT, logFile: join(work, 'bare.log') });
    await waitForStatus(`http://127.0.0.1:${barePort}/`, 200, { proc: bare, timeoutMs: 30_000 });

    let n = 0;
    const runId = `${process.pid}-${Date.now()}`;
    const freshKey: Headers = () => ({ 'Idempotency-Key': `"bench-${runId}-${n++}"` });
    const noKey: Headers = () => ({});
    const sameKey: Headers = () => ({ 'Idempotency-Key': `"bench-${runId}-replayed"` });
    const warmup = Number(args.warmup);
    if (warmup > 0) {
      await window(url, body, noKey, warmup, 201);
      await window(url, body, freshKey, warmup, 201);
    }

    const loadBefore = loadavg()[0];
    const series: Record<'A' | 'B', Window[]> = { A: [], B: [] };
    for (const side of abbaOrder(windows)) series[side].push(await window(url, body, side === 'A' ? noKey : freshKey, seconds, 201, proc.pgid, dbName));
    const replay = await window(url, body, sameKey, seconds, 201);
    const floor = await window(`http://127.0.0.1:${barePort}/`, body, noKey, seconds, 200);

    const p50 = (side: Window[]) => round(median(side.map((w) => w.p50Ms)), 3);
    const p99 = (side: Window[]) => round(median(side.map((w) => w.p99Ms)), 3);
    const ratio = round(p50(series.B) / p50(series.A), 3);
    const cpu = (side: Window[]) => ({ kernel_us_per_request: round(median(side.map((w) => w.kernelCpuUs)), 1), database_us_per_request: round(median(side.map((w) => w.databaseCpuUs)), 1) });
    const report = {
      concurrency,
      windows,
      seconds_per_window: seconds,
      machine: { cpus: availableParallelism(), load_average_1m_before: round(loadBefore, 2), load_average_1m_after: round(loadavg()[0], 2) },
      without_key: { p50_ms: p50(series.A), p99_ms: p99(series.A), requests: series.A.reduce((s, w) => s + w.ok, 0), failed: series.A.reduce((s, w) => s + w.failed, 0), window_p50s: series.A.map((w) => w.p50Ms) },
      with_fresh_key: { p50_ms: p50(series.B), p99_ms: p99(series.B), requests: series.B.reduce((s, w) => s + w.ok, 0), failed: series.B.reduce((s, w) => s + w.failed, 0), window_p50s: series.B.map((w) => w.p50Ms) },
      replay_same_key: { p50_ms: replay.p50Ms, p99_ms: replay.p99Ms, requests: replay.ok, failed: replay.failed },
      bare_node_http_post: { p50_ms: floor.p50Ms, p99_ms: floor.p99Ms },
      p50_with_key_over_without: ratio,
      cpu_without_key: cpu(series.A),
      cpu_with_fresh_key: cpu(series.B),
      targets: { p50_with_key_within_10_percent: ratio <= 1.1 && series.B.every((w) => w.failed === 0) },
    };
    console.log(`POST /api/v1/tasks p50: ${report.without_key.p50_ms} ms without a key, ${report.with_fresh_key.p50_ms} ms with one (x${ratio}); replay ${replay.p50Ms} ms; bare node:http ${floor.p50Ms} ms`);
    console.log(`CPU per request, kernel + database backends: ${report.cpu_without_key.kernel_us_per_request} + ${report.cpu_without_key.database_us_per_request} us without a key, ${report.cpu_with_fresh_key.kernel_us_per_request} + ${report.cpu_with_fresh_key.database_us_per_request} us with one`);
    console.log(JSON.stringify(report));
  } finally {
    await stopAll();
    if (created) dropDatabase(dbName);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
