/**
 * GET /health through the kernel's moleculer-web gateway vs a bare node:http server sending the
 * same bytes, same connections, windows alternated A-B-B-A (A = bare, B = kernel).
 * Target: gateway >= 0.5 x bare.
 *
 *   node --import tsx bench/health.ts [--windows 8] [--seconds 6] [--connections 100]
 *        [--warmup 3] [--profile] [--env KEY=VALUE ...]
 *
 * --profile runs the kernel under --cpu-prof and prints where its CPU time went.
 * The kernel uses a fresh database on the machine's PostgreSQL (dropped at the end).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launchKernel, PROJECT_ROOT } from './lib/kernel-process.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { freePort, pathWithThisNode, startDetached, stopAll, stopGroup, waitForStatus, type DetachedProcess } from './lib/processes.ts';
import { runLoad, type LoadWindow } from './lib/http-load.ts';
import { abbaOrder, mean, round, spreadPercent } from './lib/stats.ts';
import { printSummary, summarizeProfile } from './lib/cpu-profile.ts';

const TARGET_RATIO = 0.5;

const { values: args } = parseArgs({
  options: {
    windows: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '3' },
    profile: { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const windows = Number(args.windows);
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const warmup = Number(args.warmup);
if (!(windows >= 4) || !(seconds > 0) || !(connections > 0) || !(warmup >= 0)) throw new Error('--windows must be >= 4; --seconds, --connections > 0');
const extraEnv = Object.fromEntries((args.env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

/** Response headers that should match between the two servers (Date and the request id vary). */
async function shapeOf(url: string): Promise<{ status: number; body: string; headers: string[] }> {
  const res = await fetch(url);
  const headers = [...res.headers.keys()].filter((h) => h !== 'date').sort();
  return { status: res.status, body: await res.text(), headers };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-health-'));
  const profileDir = join(work, 'profile');
  const dbName = `bench_health_${process.pid}_${Date.now()}`;
  let dbCreated = false;
  let kernel: DetachedProcess | undefined;
  let bare: DetachedProcess | undefined;
  try {
    createDatabase(dbName);
    dbCreated = true;
    const barePort = await freePort();
    bare = startDetached('bare', process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'servers/bare-health.ts')], {
      env: { ...process.env, PATH: pathWithThisNode(), PORT: String(barePort) },
      cwd: PROJECT_ROOT,
      logFile: join(work, 'bare.log'),
    });
    const k = await launchKernel({
      via: 'node',
      nodeFlags: args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
      dataDir: join(work, 'data'),
      logFile: join(work, 'kernel.log'),
      env: { DATABASE_URL: databaseUrl(dbName), ...extraEnv },
    });
    kernel = k.proc;
    const bareUrl = `http://127.0.0.1:${barePort}/health`;
    const kernelUrl = `${k.apiUrl}/health`;
    await waitForStatus(bareUrl, 200, { proc: bare, timeoutMs: 30_000 });
    await waitForStatus(`${k.apiUrl}/health/ready`, 200, { proc: kernel, timeoutMs: 120_000 });

    const [shapeA, shapeB] = await Promise.all([shapeOf(bareUrl), shapeOf(kernelUrl)]);
    console.log(`bare   ${shapeA.status} ${shapeA.body} headers: ${shapeA.headers.join(', ')}`);
    console.log(`kernel ${shapeB.status} ${shapeB.body} headers: ${shapeB.headers.join(', ')}`);
    if (shapeA.body !== shapeB.body || shapeA.status !== shapeB.status || shapeA.headers.join() !== shapeB.headers.join()) {
      console.log('warning: the two answers differ in status, body or header names');
    }

    const load = { connections, durationSec: seconds };
    let kernelRequests = 0;
    if (warmup > 0) {
      await runLoad(bareUrl, { connections, durationSec: warmup });
      kernelRequests += (await runLoad(kernelUrl, { connections, durationSec: warmup })).ok;
    }
    const results: { side: 'A' | 'B'; window: LoadWindow }[] = [];
    console.log(`\n${windows} windows of ${seconds} s, ${connections} connections (A = bare node:http, B = kernel gateway)`);
    for (const [i, side] of abbaOrder(windows).entries()) {
      const window = await runLoad(side === 'A' ? bareUrl : kernelUrl, load);
      if (side === 'B') kernelRequests += window.ok;
      results.push({ side, window });
      const bad = window.non2xx || window.errors ? `  non2xx ${window.non2xx} errors ${window.errors}` : '';
      console.log(`  window ${i + 1} ${side} ${side === 'A' ? 'bare  ' : 'kernel'} ${round(window.reqPerSec, 0).toString().padStart(7)} req/s  p50 ${window.latencyP50Ms} ms  p99 ${window.latencyP99Ms} ms${bad}`);
    }
    const rates = (side: 'A' | 'B') => results.filter((r) => r.side === side).map((r) => r.window.reqPerSec);
    const latency = (side: 'A' | 'B', key: 'latencyP50Ms' | 'latencyP99Ms') => mean(results.filter((r) => r.side === side).map((r) => r.window[key]));
    const bareMean = mean(rates('A'));
    const kernelMean = mean(rates('B'));
    const ratio = kernelMean / bareMean;
    const failures = results.reduce((n, r) => n + r.window.non2xx + r.window.errors, 0);
    console.log(`\nbare   mean ${round(bareMean, 0)} req/s (spread ${round(spreadPercent(rates('A')), 1)}%)  p50 ${round(latency('A', 'latencyP50Ms'))} ms  p99 ${round(latency('A', 'latencyP99Ms'))} ms`);
    console.log(`kernel mean ${round(kernelMean, 0)} req/s (spread ${round(spreadPercent(rates('B')), 1)}%)  p50 ${round(latency('B', 'latencyP50Ms'))} ms  p99 ${round(latency('B', 'latencyP99Ms'))} ms`);
    console.log(`ratio kernel/bare = ${round(ratio, 3)} (target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})${failures ? `; ${failures} failed requests` : ''}`);

    let profile: ReturnType<typeof summarizeProfile> | undefined;
    if (args.profile) {
      await stopGroup(kernel, 15_000); // a clean exit writes the profile
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error(`no .cpuprofile written in ${profileDir}`);
      profile = summarizeProfile(join(profileDir, file), PROJECT_ROOT);
      printSummary(profile, kernelRequests);
    }
    console.log(
      JSON.stringify({
        bench: 'health',
        connections,
        windowSeconds: seconds,
        windows: results.map((r) => ({ side: r.side === 'A' ? 'bare' : 'kernel', reqPerSec: round(r.window.reqPerSec, 0), p50Ms: r.window.latencyP50Ms, p99Ms: r.window.latencyP99Ms })),
        bareMeanReqPerSec: round(bareMean, 0),
        kernelMeanReqPerSec: round(kernelMean, 0),
        ratio: round(ratio, 3),
        target: TARGET_RATIO,
        met: ratio >= TARGET_RATIO,
        failedRequests: failures,
        ...(profile ? { profileBusyMs: profile.busyMs, profileRequests: kernelRequests, profileTopAreas: profile.byArea.slice(0, 8) } : {}),
      }),
    );
  } finally {
    await stopAll(15_000);
    if (dbCreated) dropDatabase(dbName);
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench/health failed: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
