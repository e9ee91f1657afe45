/**
 * Inline webhook -> transform -> respond through the kernel (PostgreSQL) vs a bare node:http
 * server doing the same by hand, side by side in the same run, windows alternated A-B-B-A
 * (A = bare, B = kernel), 50 connections, autocannon on this machine. Twice: with every run
 * recorded with its receipts (WORKFLOW_RUN_PERSISTENCE=all, then checked: one run and three
 * receipts per answered request), and with errors-only persistence.
 * Targets: all >= 1,000 req/s and >= 0.06 x bare; errors-only >= 0.25 x bare.
 *
 *   node --import tsx bench/workflows-webhook.ts [--windows 4] [--seconds 6] [--connections 50] [--warmup 6]
 *        [--modes all,errors] [--profile] [--perf] [--env KEY=VALUE ...]
 *
 * --profile runs the kernel under --cpu-prof and prints where its time went (JS view).
 * --perf samples the kernel with Linux perf during its windows (CPU view).
 */
import { createRequire } from 'node:module';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { launchKernel, PROJECT_ROOT } from './lib/kernel-process.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { freePort, pathWithThisNode, startDetached, stopAll, stopGroup, waitForStatus } from './lib/processes.ts';
import { abbaOrder, mean, round } from './lib/stats.ts';
import { printSummary, summarizeProfile } from './lib/cpu-profile.ts';
import { processCpuSplitMs } from './lib/cpu-usage.ts';
import { printPerf, removePerfMap, startPerf, stopPerf } from './lib/perf-profile.ts';

const { values: args } = parseArgs({
  options: {
    windows: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '6' },
    connections: { type: 'string', default: '50' },
    // seconds of load on each server before the windows: with 2 the kernel's first window was
    // still 10-20% slower than its second in every run (its JIT had not settled; the bare one had)
    warmup: { type: 'string', default: '6' },
    modes: { type: 'string', default: 'all,errors' },
    profile: { type: 'boolean', default: false },
    perf: { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const windows = Number(args.windows);
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const warmup = Number(args.warmup);
const modes = String(args.modes).split(',') as ('all' | 'errors')[];
const extraEnv = Object.fromEntries((args.env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const EMAIL = 'bench@workflows.bench';
const PASSWORD = 'bench password of decent length';
const BODY = JSON.stringify({ name: 'ada' });
const TARGETS = { all: { ratio: 0.06, reqPerSec: 1000 }, errors: { ratio: 0.25, reqPerSec: 0 } };

interface AutocannonResult { duration: number; errors: number; non2xx: number; '2xx': number; latency: { p50: number; p99: number } }
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

async function load(url: string, durationSec: number): Promise<{ reqPerSec: number; ok: number; failed: number; p50: number; p99: number }> {
  const r = await autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, connections, duration: durationSec, pipelining: 1 });
  return { reqPerSec: r['2xx'] / r.duration, ok: r['2xx'], failed: r.non2xx + r.errors, p50: r.latency.p50, p99: r.latency.p99 };
}

async function json(url: string, init: RequestInit & { token?: string; body?: string } = {}): Promise<any> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) } });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Logs in as the first-start owner, creates a workspace, the three-step workflow and a webhook binding. */
async function setUp(apiUrl: string): Promise<{ hookUrl: string; bindingId: string }> {
  const { access_token: token } = await json(`${apiUrl}/api/v1/auth/login`, { method: 'POST', body: JSON.stringify({ email: EMAIL, password: PASSWORD }) });
  const ws = await json(`${apiUrl}/api/v1/workspaces`, { method: 'POST', token, body: JSON.stringify({ name: 'bench' }) });
  const wf = await json(`${apiUrl}/api/v1/workflows`, {
    method: 'POST',
    token,
    body: JSON.stringify({
      name: 'webhook bench',
      steps: [
        { id: 'hook', type: 'webhook', next: ['shape'] },
        { id: 'shape', type: 'transform', config: { set: { hello: '{{trigger.body.name}}', via: '{{trigger.method}}' } }, next: ['reply'] },
        { id: 'reply', type: 'respond', config: { status: 200, body: { greeting: 'hi {{shape.output.hello}}', shaped: '{{shape.output}}' } }, next: [] },
      ],
    }),
  });
  const binding = await json(`${apiUrl}/api/v1/workflows/bindings`, { method: 'POST', token, body: JSON.stringify({ workflow_id: wf.id, workspace_id: ws.id, trigger: 'webhook' }) });
  return { hookUrl: `${apiUrl}/api/v1/workflows/webhook/${binding.webhook_token}`, bindingId: binding.id };
}

function psqlCount(db: string, sql: string): number {
  return Number(execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', db, '-tAc', sql], { encoding: 'utf8' }).trim());
}

async function mode(persistence: 'all' | 'errors', work: string, bareUrl: string, barePid: number): Promise<Record<string, unknown>> {
  const dbName = `bench_wf_hook_${persistence}_${process.pid}`;
  createDatabase(dbName);
  const profileDir = join(work, `profile-${persistence}`);
  try {
    const k = await launchKernel({
      via: 'node',
      nodeFlags: args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : args.perf ? ['--perf-basic-prof'] : [],
      dataDir: join(work, `data-${persistence}`),
      logFile: join(work, `kernel-${persistence}.log`),
      env: { DATABASE_URL: databaseUrl(dbName), ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD, WORKFLOW_RUN_PERSISTENCE: persistence, ...extraEnv },
    });
    await waitForStatus(`${k.apiUrl}/health/ready`, 200, { proc: k.proc, timeoutMs: 120_000 });
    const { hookUrl, bindingId } = await setUp(k.apiUrl);
    const urls = { A: bareUrl, B: hookUrl };
    const pids = { A: barePid, B: k.proc.child.pid! };
    let kernelAnswered = 0;
    if (warmup > 0) {
      await load(urls.A, warmup);
      kernelAnswered += (await load(urls.B, warmup)).ok;
    }
    const perf = args.perf ? startPerf(k.proc.child.pid!, join(work, `perf-${persistence}.data`)) : undefined;
    const results: { side: 'A' | 'B'; reqPerSec: number; p50: number; p99: number; failed: number; cpuUsPerReq: number }[] = [];
    console.log(`\npersistence=${persistence}: ${windows} windows of ${seconds} s, ${connections} connections (A = bare node:http, B = kernel webhook)`);
    for (const [i, side] of abbaOrder(windows).entries()) {
      const cpu0 = processCpuSplitMs(pids[side]);
      const w = await load(urls[side], seconds);
      const cpu1 = processCpuSplitMs(pids[side]);
      const perReq = (ms: number) => (ms * 1000) / Math.max(1, w.ok);
      const cpuUsPerReq = perReq(cpu1.user - cpu0.user + cpu1.system - cpu0.system);
      const systemUsPerReq = perReq(cpu1.system - cpu0.system);
      if (side === 'B') kernelAnswered += w.ok;
      results.push({ side, reqPerSec: w.reqPerSec, p50: w.p50, p99: w.p99, failed: w.failed, cpuUsPerReq });
      console.log(`  window ${i + 1} ${side} ${side === 'A' ? 'bare  ' : 'kernel'} ${round(w.reqPerSec, 0).toString().padStart(6)} req/s  p50 ${w.p50} ms  p99 ${w.p99} ms  server CPU ${round(cpuUsPerReq, 0)} us/req (system ${round(systemUsPerReq, 0)})${w.failed ? `  failed ${w.failed}` : ''}`);
    }
    if (perf) await stopPerf(perf);
    await new Promise((r) => setTimeout(r, 500));
    const runs = psqlCount(dbName, `SELECT count(*) FROM workflow_runs WHERE binding_id = '${bindingId}'`);
    const completed = psqlCount(dbName, `SELECT count(*) FROM workflow_runs WHERE binding_id = '${bindingId}' AND status = 'completed'`);
    const receipts = psqlCount(dbName, `SELECT count(*) FROM workflow_step_receipts r JOIN workflow_runs w ON w.id = r.run_id WHERE w.binding_id = '${bindingId}'`);
    await stopGroup(k.proc, 15_000);
    if (perf) {
      printPerf(perf.file);
      removePerfMap(k.proc.child.pid!);
    }
    const of = (side: 'A' | 'B', key: 'reqPerSec' | 'p50' | 'p99' | 'cpuUsPerReq') => mean(results.filter((r) => r.side === side).map((r) => r[key]));
    const ratio = of('B', 'reqPerSec') / of('A', 'reqPerSec');
    const target = TARGETS[persistence];
    const met = ratio >= target.ratio && of('B', 'reqPerSec') >= target.reqPerSec;
    console.log(`  bare ${round(of('A', 'reqPerSec'), 0)} req/s, kernel ${round(of('B', 'reqPerSec'), 0)} req/s (p50 ${round(of('B', 'p50'), 1)} ms, p99 ${round(of('B', 'p99'), 1)} ms): ratio ${round(ratio, 3)} (target >= ${target.ratio}${target.reqPerSec ? ` and >= ${target.reqPerSec} req/s` : ''}: ${met ? 'met' : 'NOT met'})`);
    console.log(`  kernel CPU ${round(of('B', 'cpuUsPerReq'), 0)} us/req vs bare ${round(of('A', 'cpuUsPerReq'), 0)} us/req; answered ${kernelAnswered}, runs stored ${runs} (completed ${completed}), receipts ${receipts}`);
    if (args.profile) {
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (file) {
        printSummary(summarizeProfile(join(profileDir, file), PROJECT_ROOT));
        copyFileSync(join(profileDir, file), join(tmpdir(), `workflows-webhook-${persistence}.cpuprofile`));
      }
    }
    return {
      persistence,
      bareReqPerSec: round(of('A', 'reqPerSec'), 0),
      kernelReqPerSec: round(of('B', 'reqPerSec'), 0),
      ratio: round(ratio, 3),
      kernelP50Ms: round(of('B', 'p50'), 1),
      kernelP99Ms: round(of('B', 'p99'), 1),
      kernelCpuUsPerReq: round(of('B', 'cpuUsPerReq'), 0),
      bareCpuUsPerReq: round(of('A', 'cpuUsPerReq'), 0),
      answered: kernelAnswered,
      runsStored: runs,
      receiptsStored: receipts,
      target,
      met,
    };
  } finally {
    dropDatabase(dbName);
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-wf-hook-'));
  try {
    const barePort = await freePort();
    const bare = startDetached('bare', process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'workflows-bare-webhook.ts')], {
      env: { ...process.env, PATH: pathWithThisNode(), PORT: String(barePort) },
      cwd: PROJECT_ROOT,
      logFile: join(work, 'bare.log'),
    });
    const bareUrl = `http://127.0.0.1:${barePort}/hook`;
    await new Promise((r) => setTimeout(r, 1000));
    const results = [];
    for (const m of modes) results.push(await mode(m, work, bareUrl, bare.child.pid!));
    console.log(JSON.stringify({ bench: 'workflows-webhook', connections, windowSeconds: seconds, results }));
  } finally {
    await stopAll(15_000);
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench/workflows-webhook failed: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
