/**
 * GET /health through the kernel's moleculer-web gateway vs a bare node:http server sending the
 * same bytes, same connections, windows alternated A-B-B-A (A = bare, B = kernel).
 * Target: gateway >= 0.5 x bare (req/s). Also reports each server's CPU time per request, the
 * steadier figure on a shared machine.
 *
 *   node --import tsx bench/health.ts [--windows 8] [--seconds 6] [--connections 100] [--warmup 3]
 *        [--profile v8|perf] [--root DIR] [--env KEY=VALUE ...]
 *
 * --profile v8   runs the kernel under --cpu-prof and prints where its time went (JS view).
 * --profile perf samples the kernel with Linux perf during the windows (CPU view).
 * --root DIR     benchmarks the kernel of another checkout (e.g. a copy with a candidate fix).
 * --env K=V      extra kernel environment, e.g. --env METRICS_ENABLED=false.
 * The kernel uses a fresh database on the machine's PostgreSQL (dropped at the end).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launchKernel, PROJECT_ROOT } from './lib/kernel-process.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { freePort, pathWithThisNode, startDetached, stopAll, stopGroup, waitForStatus } from './lib/processes.ts';
import { runLoad, type LoadWindow } from './lib/http-load.ts';
import { abbaOrder, mean, round, spreadPercent } from './lib/stats.ts';
import { printSummary, summarizeProfile } from './lib/cpu-profile.ts';
import { ownCpuMs, processCpuMs } from './lib/cpu-usage.ts';
import { perfAvailable, printPerf, removePerfMap, startPerf, stopPerf } from './lib/perf-profile.ts';

const TARGET_RATIO = 0.5;

const { values: args } = parseArgs({
  options: {
    windows: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '3' },
    profile: { type: 'string' },
    root: { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const windows = Number(args.windows);
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const warmup = Number(args.warmup);
if (!(windows >= 4) || !(seconds > 0) || !(connections > 0) || !(warmup >= 0)) throw new Error('--windows must be >= 4; --seconds, --connections > 0');
if (args.profile !== undefined && args.profile !== 'v8' && args.profile !== 'perf') throw new Error('--profile is v8 or perf');
if (args.profile === 'perf' && !perfAvailable()) throw new Error('--profile perf needs the perf command');
const kernelRoot = args.root ? resolve(args.root) : PROJECT_ROOT;
const extraEnv = Object.fromEntries((args.env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

type Side = 'A' | 'B';
const LABEL: Record<Side, string> = { A: 'bare  ', B: 'kernel' };

interface Measured extends LoadWindow {
  /** the server's CPU use over the window, percent of one core */
  serverCpuPercent: number;
  /** the server's CPU time per answered request, microseconds */
  serverCpuUsPerReq: number;
  /** this process's (autocannon's) CPU use, percent of one core: near 100 means the client limits */
  clientCpuPercent: number;
}

async function measure(url: string, serverPid: number, durationSec: number): Promise<Measured> {
  const server0 = processCpuMs(serverPid);
  const client0 = ownCpuMs();
  const t0 = performance.now();
  const window = await runLoad(url, { connections, durationSec });
  const wallMs = performance.now() - t0;
  const serverMs = processCpuMs(serverPid) - server0;
  return {
    ...window,
    serverCpuPercent: (serverMs / wallMs) * 100,
    serverCpuUsPerReq: (serverMs * 1000) / Math.max(1, window.ok),
    clientCpuPercent: ((ownCpuMs() - client0) / wallMs) * 100,
  };
}

/** Response headers that should match between the two servers (Date and the request id vary). */
async function shapeOf(url: string): Promise<string> {
  const res = await fetch(url);
  const headers = [...res.headers.keys()].filter((h) => h !== 'date').sort();
  return `${res.status} ${await res.text()} headers: ${headers.join(', ')}`;
}

async function runWindows(urls: Record<Side, string>, pids: Record<Side, number>): Promise<{ side: Side; window: Measured }[]> {
  const results: { side: Side; window: Measured }[] = [];
  console.log(`\n${windows} windows of ${seconds} s, ${connections} connections (A = bare node:http, B = kernel gateway)`);
  console.log('  server CPU = the server process, % of one core and microseconds per request; client = autocannon in this process');
  for (const [i, side] of abbaOrder(windows).entries()) {
    const w = await measure(urls[side], pids[side], seconds);
    results.push({ side, window: w });
    const bad = w.non2xx || w.errors ? `  non2xx ${w.non2xx} errors ${w.errors}` : '';
    console.log(
      `  window ${i + 1} ${side} ${LABEL[side]} ${round(w.reqPerSec, 0).toString().padStart(7)} req/s  p50 ${w.latencyP50Ms} ms  p99 ${w.latencyP99Ms} ms` +
        `  server CPU ${round(w.serverCpuPercent, 0)}% ${round(w.serverCpuUsPerReq, 1)} us/req  client CPU ${round(w.clientCpuPercent, 0)}%${bad}`,
    );
  }
  return results;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-health-'));
  const profileDir = join(work, 'profile');
  const dbName = `bench_health_${process.pid}_${Date.now()}`;
  let dbCreated = false;
  let kernelPid: number | undefined;
  try {
    createDatabase(dbName);
    dbCreated = true;
    const barePort = await freePort();
    const bare = startDetached('bare', process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'servers/bare-health.ts')], {
      env: { ...process.env, PATH: pathWithThisNode(), PORT: String(barePort) },
      cwd: PROJECT_ROOT,
      logFile: join(work, 'bare.log'),
    });
    const profileFlags = { v8: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`], perf: ['--perf-basic-prof'] };
    const k = await launchKernel({
      via: 'node',
      root: kernelRoot,
      nodeFlags: args.profile ? profileFlags[args.profile as 'v8' | 'perf'] : [],
      dataDir: join(work, 'data'),
      logFile: join(work, 'kernel.log'),
      env: { DATABASE_URL: databaseUrl(dbName), ...extraEnv },
    });
    kernelPid = k.proc.child.pid!;
    const urls = { A: `http://127.0.0.1:${barePort}/health`, B: `${k.apiUrl}/health` };
    await waitForStatus(urls.A, 200, { proc: bare, timeoutMs: 30_000 });
    await waitForStatus(`${k.apiUrl}/health/ready`, 200, { proc: k.proc, timeoutMs: 120_000 });
    console.log(`kernel: ${kernelRoot}${Object.keys(extraEnv).length ? ` with ${JSON.stringify(extraEnv)}` : ''}`);
    console.log(`bare   answers ${await shapeOf(urls.A)}\nkernel answers ${await shapeOf(urls.B)}`);

    if (warmup > 0) for (const side of ['A', 'B'] as const) await runLoad(urls[side], { connections, durationSec: warmup });
    const perf = args.profile === 'perf' ? startPerf(kernelPid, join(work, 'perf.data')) : undefined;
    const results = await runWindows(urls, { A: bare.child.pid!, B: kernelPid });
    if (perf) await stopPerf(perf);

    const of = (side: Side, key: keyof Measured) => results.filter((r) => r.side === side).map((r) => r.window[key]);
    const reqPerSec = { A: mean(of('A', 'reqPerSec')), B: mean(of('B', 'reqPerSec')) };
    const cpuPerReq = { A: mean(of('A', 'serverCpuUsPerReq')), B: mean(of('B', 'serverCpuUsPerReq')) };
    const ratio = reqPerSec.B / reqPerSec.A;
    const failures = results.reduce((n, r) => n + r.window.non2xx + r.window.errors, 0);
    console.log('');
    for (const side of ['A', 'B'] as const) {
      console.log(
        `${LABEL[side]} mean ${round(reqPerSec[side], 0)} req/s (spread ${round(spreadPercent(of(side, 'reqPerSec')), 1)}%)  p50 ${round(mean(of(side, 'latencyP50Ms')))} ms  p99 ${round(mean(of(side, 'latencyP99Ms')))} ms` +
          `  server CPU ${round(cpuPerReq[side], 1)} us/req at ${round(mean(of(side, 'serverCpuPercent')), 0)}%  client CPU ${round(mean(of(side, 'clientCpuPercent')), 0)}%`,
      );
    }
    console.log(`ratio kernel/bare = ${round(ratio, 3)} (target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})${failures ? `; ${failures} failed requests` : ''}`);
    console.log(`CPU per request: kernel ${round(cpuPerReq.B, 1)} us vs bare ${round(cpuPerReq.A, 1)} us (bare/kernel = ${round(cpuPerReq.A / cpuPerReq.B, 3)}; the gateway adds ${round(cpuPerReq.B - cpuPerReq.A, 1)} us)`);

    let v8Profile: ReturnType<typeof summarizeProfile> | undefined;
    if (args.profile === 'v8') {
      await stopGroup(k.proc, 15_000); // a clean exit writes the profile
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error(`no .cpuprofile written in ${profileDir}`);
      v8Profile = summarizeProfile(join(profileDir, file), kernelRoot);
      printSummary(v8Profile);
    }
    if (perf) printPerf(perf.file, cpuPerReq.B);
    console.log(
      JSON.stringify({
        bench: 'health',
        kernelRoot,
        kernelEnv: extraEnv,
        connections,
        windowSeconds: seconds,
        windows: results.map((r) => ({
          side: r.side === 'A' ? 'bare' : 'kernel',
          reqPerSec: round(r.window.reqPerSec, 0),
          p50Ms: r.window.latencyP50Ms,
          p99Ms: r.window.latencyP99Ms,
          serverCpuPercent: round(r.window.serverCpuPercent, 0),
          serverCpuUsPerReq: round(r.window.serverCpuUsPerReq, 1),
          clientCpuPercent: round(r.window.clientCpuPercent, 0),
        })),
        bareMeanReqPerSec: round(reqPerSec.A, 0),
        kernelMeanReqPerSec: round(reqPerSec.B, 0),
        ratio: round(ratio, 3),
        target: TARGET_RATIO,
        met: ratio >= TARGET_RATIO,
        bareCpuUsPerReq: round(cpuPerReq.A, 1),
        kernelCpuUsPerReq: round(cpuPerReq.B, 1),
        cpuRatioBareToKernel: round(cpuPerReq.A / cpuPerReq.B, 3),
        failedRequests: failures,
        ...(v8Profile ? { v8ProfileTopAreas: v8Profile.byArea.slice(0, 8) } : {}),
      }),
    );
  } finally {
    await stopAll(15_000);
    if (kernelPid !== undefined && args.profile === 'perf') removePerfMap(kernelPid);
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
