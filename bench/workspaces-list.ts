/**
 * Authenticated GET /api/v1/workspaces (50 workspaces, PostgreSQL) through the kernel vs a bare
 * node:http server sending the same JSON body, windows alternated A-B-B-A, 100 connections;
 * the kernel's GET /health is measured in the same run for comparison.
 * Target: list >= 0.25 x bare (req/s). The token check must not hit the database per request.
 *
 *   node --import tsx bench/workspaces-list.ts [--windows 8] [--seconds 5] [--connections 100] [--profile v8|perf]
 *
 * --profile v8   runs the kernel under --cpu-prof and prints where its time went (JS view).
 * --profile perf samples the kernel with Linux perf during the windows (CPU view).
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launchKernel, PROJECT_ROOT } from './lib/kernel-process.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { freePort, pathWithThisNode, startDetached, stopAll, stopGroup, waitForStatus } from './lib/processes.ts';
import { printSummary, summarizeProfile } from './lib/cpu-profile.ts';
import { printPerf, removePerfMap, startPerf, stopPerf } from './lib/perf-profile.ts';
import { runLoad, type LoadWindow } from './lib/http-load.ts';
import { processCpuMs } from './lib/cpu-usage.ts';
import { abbaOrder, mean, round } from './lib/stats.ts';

const TARGET = 0.25;
const { values: args } = parseArgs({ options: { windows: { type: 'string', default: '8' }, seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '100' }, profile: { type: 'string' } } });
const windows = Number(args.windows);
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const ADMIN = { email: 'bench@bench.test', password: 'bench password long enough' };

async function json(url: string, init: RequestInit & { token?: string; body?: string } = {}): Promise<any> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const res = await fetch(url, { ...init, headers });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-ws-'));
  const dbName = `bench_ws_${process.pid}_${Date.now()}`;
  createDatabase(dbName);
  try {
    const profileDir = join(work, 'profile');
    const k = await launchKernel({
      via: 'node', nodeFlags: args.profile === 'v8' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : args.profile === 'perf' ? ['--perf-basic-prof'] : [], dataDir: join(work, 'data'), logFile: join(work, 'kernel.log'),
      env: { DATABASE_URL: databaseUrl(dbName), ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, CAPABILITY_DISABLED: '' },
    });
    await waitForStatus(`${k.apiUrl}/health/ready`, 200, { proc: k.proc, timeoutMs: 120_000 });
    const { access_token: token } = await json(`${k.apiUrl}/api/v1/auth/login`, { method: 'POST', body: JSON.stringify(ADMIN) });
    for (let i = 0; i < 50; i++) await json(`${k.apiUrl}/api/v1/workspaces`, { method: 'POST', token, body: JSON.stringify({ name: `Workspace ${i}`, description: 'bench', category: 'ops' }) });
    const listUrl = `${k.apiUrl}/api/v1/workspaces?limit=50`;
    const sample = await json(listUrl, { token });
    if (sample.total !== 50 || sample.items.length !== 50) throw new Error(`expected 50 workspaces, got ${sample.total}`);
    const bodyFile = join(work, 'body.json');
    writeFileSync(bodyFile, JSON.stringify(sample));
    const barePort = await freePort();
    const bare = startDetached('bare', process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'servers/bare-json.ts')], {
      env: { ...process.env, PATH: pathWithThisNode(), PORT: String(barePort), BODY_FILE: bodyFile }, cwd: PROJECT_ROOT, logFile: join(work, 'bare.log'),
    });
    const bareUrl = `http://127.0.0.1:${barePort}/api/v1/workspaces`;
    await waitForStatus(bareUrl, 200, { proc: bare, timeoutMs: 30_000 });
    const auth = { Authorization: `Bearer ${token}` };
    const pidOf = (side: 'A' | 'B' | 'H') => (side === 'A' ? bare : k.proc).child.pid!;
    // the server's CPU time per request is the steadiest figure on a shared machine
    const load = async (side: 'A' | 'B' | 'H'): Promise<LoadWindow & { cpuUsPerReq: number }> => {
      const cpu0 = processCpuMs(pidOf(side));
      const w = side === 'A' ? await runLoad(bareUrl, { connections, durationSec: seconds })
        : side === 'B' ? await runLoad(listUrl, { connections, durationSec: seconds, headers: auth })
        : await runLoad(`${k.apiUrl}/health`, { connections, durationSec: seconds });
      return { ...w, cpuUsPerReq: ((processCpuMs(pidOf(side)) - cpu0) * 1000) / Math.max(1, w.ok) };
    };
    await load('A'); await load('B'); // warm-up
    const perf = args.profile === 'perf' ? startPerf(k.proc.child.pid!, join(work, 'perf.data')) : undefined;
    const results: { side: 'A' | 'B' | 'H'; w: LoadWindow & { cpuUsPerReq: number } }[] = [];
    console.log(`${windows} windows of ${seconds} s, ${connections} connections; A = bare (same ${JSON.stringify(sample).length}-byte body), B = kernel list, H = kernel /health`);
    for (const side of abbaOrder(windows)) {
      for (const s of side === 'B' ? (['B', 'H'] as const) : (['A'] as const)) {
        const w = await load(s);
        results.push({ side: s, w });
        console.log(`  ${s} ${round(w.reqPerSec, 0).toString().padStart(7)} req/s  p50 ${w.latencyP50Ms} ms  p99 ${w.latencyP99Ms} ms  server CPU ${round(w.cpuUsPerReq, 1)} us/req${w.non2xx || w.errors ? `  non2xx ${w.non2xx} errors ${w.errors}` : ''}`);
      }
    }
    const m = (s: 'A' | 'B' | 'H') => mean(results.filter((r) => r.side === s).map((r) => r.w.reqPerSec));
    const ratio = m('B') / m('A');
    const cpu = (s: 'A' | 'B' | 'H') => mean(results.filter((r) => r.side === s).map((r) => r.w.cpuUsPerReq));
    console.log(`server CPU per request: bare ${round(cpu('A'), 1)} us; kernel list ${round(cpu('B'), 1)} us (bare/list = ${round(cpu('A') / cpu('B'), 3)}); kernel /health ${round(cpu('H'), 1)} us`);
    console.log(`bare ${round(m('A'), 0)} req/s; kernel list ${round(m('B'), 0)} req/s; kernel /health ${round(m('H'), 0)} req/s`);
    console.log(`ratio list/bare = ${round(ratio, 3)} (target >= ${TARGET}: ${ratio >= TARGET ? 'met' : 'NOT met'}); health/bare = ${round(m('H') / m('A'), 3)}`);
    if (perf) {
      await stopPerf(perf);
      printPerf(perf.file, cpu('B'));
      removePerfMap(k.proc.child.pid!);
    }
    if (args.profile === 'v8') {
      await stopGroup(k.proc, 15_000); // a clean exit writes the profile
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error(`no .cpuprofile written in ${profileDir}`);
      printSummary(summarizeProfile(join(profileDir, file), PROJECT_ROOT));
      copyFileSync(join(profileDir, file), join(tmpdir(), 'workspaces-list.cpuprofile'));
      console.log(`profile kept as ${join(tmpdir(), 'workspaces-list.cpuprofile')} (open it in Chrome DevTools)`);
    }
    console.log(JSON.stringify({ bench: 'workspaces-list', bare: m('A'), list: m('B'), health: m('H'), cpuUsPerReq: { bare: cpu('A'), list: cpu('B'), health: cpu('H') }, ratio, target: TARGET, met: ratio >= TARGET }));
  } finally {
    await stopAll();
    dropDatabase(dbName);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
