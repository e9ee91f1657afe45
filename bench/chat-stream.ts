/**
 * Chat streams: how much a `POST /api/v1/chat/stream` adds to the provider's own first token,
 * and 500 streams open at once on one node.
 *
 *   node --import tsx bench/chat-stream.ts [--sequential 60] [--concurrent 500] [--chunks 20] [--interval 100] [--ramp 2] [--steady-chunks 300]
 *
 * The kernel runs detached (`node kernel/main.ts`, PostgreSQL, in-process queue, the work worker
 * at WORKER_WORK_CONCURRENCY = `--slots`, default the concurrent streams: a chat run holds a work slot
 * from its start to its end). A
 * streaming OpenAI-compatible provider in a process of its own (a key's base_url, allow-listed)
 * notes when it writes each token, sending `--chunks` tokens `--interval` ms apart; the client
 * reads the streams with node:http in this process. Added latency = when the client reads a
 * `text.delta` frame minus when the provider wrote that token, both on the machine's monotonic
 * clock: the SDK's parsing, the models stream, the agent loop, the run's live events, the chat
 * relay and the SSE write, and any lag of this process's own event loop (each concurrent phase
 * prints it: `load_generator_loop_delay_ms`). One at a time, the first token of each
 * answer (target p50 < 3 ms, p99 < 15 ms). Then a burst (phase `burst`): `--concurrent` streams
 * requested over `--ramp` seconds, each answered over chunks x interval: every token's added
 * latency while the kernel is busy starting them. Memory per open stream = the kernel's peak RSS
 * minus its RSS before, over the streams.
 *
 * Then the steady state: as many streams over the same ramp, each `--steady-chunks` tokens long,
 * so that all of them are open together for a while; the tokens sent while every stream was open
 * (after the last stream's first token, before the first stream's last: the 500-concurrent-streams
 * target, no error and added p99 < 50 ms) are timed apart, with
 * the kernel's CPU in that window. `--steady-chunks 0` skips it.
 *
 * BENCH_KERNEL_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" profiles the kernel (each phase prints
 * its `window_us` on the monotonic clock the profile uses: `bench/profile-summary.ts --from --to`);
 * BENCH_SQL_COUNT=1 counts the kernel's SQL statements per stream of each concurrent phase;
 * `--root DIR` runs the kernel of another checkout (before/after comparisons; link its node_modules);
 * `--threads N` sets the kernel's MODEL_STREAM_THREADS (default: its own, auto); BENCH_DELTAS_DIR=DIR
 * writes each concurrent phase's `[sent, added ms]` per delta to DIR/<phase>.json (where the tail is).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openChatStream, type StreamResult } from './lib/chat-client.ts';
import { startProviderProcess, type ProviderProcess } from './lib/chat-provider-process.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpuBetween, sampleCpu } from './lib/cpu-sampler.ts';
import { processCpuMs } from './lib/cpu-usage.ts';
import { launchKernel, type KernelProcess } from './lib/kernel-process.ts';
import { stopAll, waitForStatus } from './lib/processes.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { readSqlCounts, sqlPerStream } from './lib/sql-count.ts';
import { percentile, round } from './lib/stats.ts';

const { values: args } = parseArgs({ options: { sequential: { type: 'string', default: '60' }, concurrent: { type: 'string', default: '500' }, chunks: { type: 'string', default: '20' }, interval: { type: 'string', default: '100' }, ramp: { type: 'string', default: '2' }, 'steady-chunks': { type: 'string', default: '300' }, slots: { type: 'string' }, threads: { type: 'string' }, root: { type: 'string' } } });
const SEQUENTIAL = Number(args.sequential);
const CONCURRENT = Number(args.concurrent);
const CHUNKS = Number(args.chunks);
const STEADY_CHUNKS = Number(args['steady-chunks']);
/** the work worker's slots (WORKER_WORK_CONCURRENCY): a chat run holds one from its start to its end */
const SLOTS = Number(args.slots ?? Math.min(1024, Math.max(4, CONCURRENT)));
const SQL_COUNT_FILE = process.env.BENCH_SQL_COUNT ? join(tmpdir(), `bench-chat-sql-${process.pid}.json`) : undefined;

let provider: ProviderProcess;

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const pcts = (v: number[], digits = 3) => (v.length ? { p50: round(percentile(v, 50), digits), p99: round(percentile(v, 99), digits), deltas: v.length } : null);

/** monitorEventLoopDelay's sampling interval (ms); its figures include it */
const LAG_RESOLUTION_MS = 10;
const lagMs = (ns: number) => round(Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS), 2);

type Opened = StreamResult & { marker: string; chunks: number };

/** `CONCURRENT` streams of `chunks` tokens opened over the ramp; what they measured, and the kernel's CPU and memory meanwhile. */
async function concurrentPhase(kernel: KernelProcess, db: string, token: string, phase: string, chunks: number): Promise<void> {
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  lag.enable();
  const pid = kernel.proc.pgid;
  const sqlBefore = SQL_COUNT_FILE ? await readSqlCounts(pid, SQL_COUNT_FILE) : undefined;
  const idle = rssKiB(pid);
  let peak = idle;
  const rss = setInterval(() => (peak = Math.max(peak, rssKiB(pid))), 100);
  const cpu = sampleCpu(pid, db);
  const windowUs = [monotonicUs()];
  const started = performance.now();
  const benchCpu = process.cpuUsage();
  const rampMs = Number(args.ramp) * 1000;
  const results: Opened[] = await Promise.all(Array.from({ length: CONCURRENT }, async (_, i) => {
    await new Promise((r) => setTimeout(r, (rampMs * i) / CONCURRENT));
    const marker = `m-${phase.slice(0, 3)}${i}`;
    return { ...(await openChatStream(kernel.apiUrl, token, `please answer ${marker} n=${chunks}`)), marker, chunks };
  }));
  const ended = performance.now();
  windowUs.push(monotonicUs());
  clearInterval(rss);
  const samples = cpu.stop();
  const bench = process.cpuUsage(benchCpu);
  const sqlAfter = SQL_COUNT_FILE ? await readSqlCounts(pid, SQL_COUNT_FILE) : undefined;
  lag.disable();
  const sentAt = await provider.sentAt();

  const ok = results.filter((r) => r.ok);
  const errors = results.filter((r) => !r.ok).map((r) => r.error);
  const sent = (r: Opened, i: number) => sentAt.get(`${r.marker}#${i}`)!;
  const timed = ok.flatMap((r) => [...r.arrivals].map(([i, at]) => ({ sent: sent(r, i), added: at - sent(r, i) })));
  const rampEnd = started + rampMs;
  // every stream open: after the last stream's first token, before the first stream's last one
  const allOpen = ok.length === results.length && ok.length > 0 ? { from: Math.max(...ok.map((r) => sent(r, 0))), to: Math.min(...ok.map((r) => sent(r, r.chunks - 1))) } : undefined;
  const steady = allOpen && allOpen.to > allOpen.from ? timed.filter((x) => x.sent >= allOpen.from && x.sent <= allOpen.to) : [];
  const kernelMs = cpuBetween(samples, started, ended, 'process');
  const postgresMs = cpuBetween(samples, started, ended, 'postgres');
  const wallMs = ended - started;
  const fromRequest = (f: (r: Opened) => number) => {
    const v = ok.map(f).filter(Number.isFinite);
    return v.length ? { p50: round(percentile(v, 50), 1), p99: round(percentile(v, 99), 1), max: round(Math.max(...v), 1) } : null;
  };
  const steadyFigures = () => {
    if (!allOpen || allOpen.to <= allOpen.from) return { seconds: 0, note: 'the streams never were all open at once (longer --steady-chunks)' };
    const ms = allOpen.to - allOpen.from;
    const kernelIn = cpuBetween(samples, allOpen.from, allOpen.to, 'process');
    return {
      seconds: round(ms / 1000), open_streams: ok.length, added_delta_ms: pcts(steady.map((x) => x.added)),
      kernel_pct_of_a_core: round((kernelIn / ms) * 100), kernel_main_thread_pct_of_a_core: round((cpuBetween(samples, allOpen.from, allOpen.to, 'main') / ms) * 100), kernel_cpu_ms_per_delta: round(kernelIn / Math.max(1, steady.length), 3),
      postgres_pct_of_a_core: round((cpuBetween(samples, allOpen.from, allOpen.to, 'postgres') / ms) * 100),
    };
  };
  console.log(JSON.stringify({
    phase, streams: CONCURRENT, tokens_per_stream: chunks, failed: errors.length, first_error: errors[0] ?? null, seconds: round(wallMs / 1000),
    added_delta_ms: pcts(timed.map((x) => x.added)),
    added_delta_after_ramp_ms: pcts(timed.filter((x) => x.sent > rampEnd).map((x) => x.added)),
    all_streams_open: steadyFigures(),
    from_request_ms: {
      provider_first_token: fromRequest((r) => sent(r, 0) - r.requested),
      first_delta: fromRequest((r) => r.arrivals.get(0)! - r.requested),
      whole_stream: fromRequest((r) => r.ended - r.requested),
      whole_stream_less_provider: fromRequest((r) => r.ended - r.requested - (sent(r, r.chunks - 1) - sent(r, 0))),
    },
    work_slots: SLOTS,
    // the load generator's own event-loop lag: a reader late by this much counts it as added latency
    load_generator_loop_delay_ms: { p50: lagMs(lag.percentile(50)), p99: lagMs(lag.percentile(99)), max: lagMs(lag.max) },
    cpu: { kernel_pct_of_a_core: round((kernelMs / wallMs) * 100), kernel_main_thread_pct_of_a_core: round((cpuBetween(samples, started, ended, 'main') / wallMs) * 100), postgres_backends_pct_of_a_core: round((postgresMs / wallMs) * 100), bench_process_pct_of_a_core: round(((bench.user + bench.system) / 1000 / wallMs) * 100) },
    kernel_cpu_ms: { total: round(kernelMs), per_stream: round(kernelMs / CONCURRENT, 2), per_delta: round(kernelMs / Math.max(1, timed.length), 3) },
    postgres_cpu_ms_per_stream: round(postgresMs / CONCURRENT, 2),
    kernel_rss_mib: { idle: round(idle / 1024), peak: round(peak / 1024) }, kib_per_open_stream: round((peak - idle) / CONCURRENT, 1),
    window_us: windowUs,
  }));
  if (sqlBefore && sqlAfter) console.log(JSON.stringify({ phase, sql_per_stream: sqlPerStream(sqlBefore, sqlAfter, CONCURRENT) }));
  if (process.env.BENCH_DELTAS_DIR) writeFileSync(join(process.env.BENCH_DELTAS_DIR, `${phase}.json`), JSON.stringify({ all_open: allOpen, deltas: timed.map((x) => [round(x.sent, 1), round(x.added, 2)]) }));
}

async function main(): Promise<void> {
  provider = await startProviderProcess(CHUNKS, Number(args.interval));
  const providerUrl = provider.url;
  const db = `bench_chat_${process.pid}`;
  createDatabase(db);
  const dataDir = mkdtempSync(join(tmpdir(), 'wao-bench-chat-'));
  const nodeFlags = [...(process.env.BENCH_KERNEL_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), ...(SQL_COUNT_FILE ? ['--import', join(import.meta.dirname, 'lib', 'sql-count.ts')] : [])];
  const kernel = await launchKernel({
    via: 'node', dataDir, logFile: join(dataDir, 'kernel.log'), nodeFlags, root: args.root,
    env: { DATABASE_URL: databaseUrl(db), ADMIN_PASSWORD: 'bench-password-0123', MODEL_BASE_URL_ALLOW: '127.0.0.1', WORKER_WORK_CONCURRENCY: String(SLOTS), DATABASE_POOL_MAX: '20', ...(args.threads ? { MODEL_STREAM_THREADS: args.threads } : {}), ...(SQL_COUNT_FILE ? { BENCH_SQL_COUNT_FILE: SQL_COUNT_FILE } : {}) },
  });
  try {
    await waitForStatus(`${kernel.apiUrl}/health/ready`, 200, { proc: kernel.proc, timeoutMs: 120_000 });
    const login = await (await fetch(`${kernel.apiUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@localhost', password: 'bench-password-0123' }) })).json() as { access_token: string };
    const token = login.access_token;
    const key = await fetch(`${kernel.apiUrl}/api/v1/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'bench', provider: 'openai_compatible', base_url: providerUrl, api_key: 'bench-key-0123', default_model: 'bench', is_default: true }) });
    if (key.status !== 201) throw new Error(`key: ${key.status} ${await key.text()}`);

    for (let i = 0; i < 5; i++) await openChatStream(kernel.apiUrl, token, `please answer m-warm${i}`);
    const added: number[] = [];
    const firstFromRequest: number[] = [];
    let failed = 0;
    const windowUs = [monotonicUs()];
    const sequentialCpu = processCpuMs(kernel.proc.pgid);
    const sequential: StreamResult[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) sequential.push(await openChatStream(kernel.apiUrl, token, `please answer m-seq${i}`));
    windowUs.push(monotonicUs());
    const sentAt = await provider.sentAt();
    for (const [i, r] of sequential.entries()) {
      if (!r.ok || !r.arrivals.has(0)) failed++;
      else {
        added.push(r.arrivals.get(0)! - sentAt.get(`m-seq${i}#0`)!);
        firstFromRequest.push(r.arrivals.get(0)! - r.requested);
      }
    }
    // one stream at a time: its CPU without the queueing of many (the steadiest per-stream figure)
    const kernelCpuPerStream = round((processCpuMs(kernel.proc.pgid) - sequentialCpu) / Math.max(1, SEQUENTIAL), 2);
    console.log(JSON.stringify({ phase: 'one at a time', streams: SEQUENTIAL, failed, added_first_delta_ms: pcts(added), first_delta_from_request_ms: pcts(firstFromRequest), kernel_cpu_ms_per_stream: kernelCpuPerStream, window_us: windowUs }));

    await concurrentPhase(kernel, db, token, 'burst', CHUNKS);
    if (STEADY_CHUNKS > 0) {
      // the server closes the previous phase's idle keep-alive connections (5 s) before this one
      // opens streams: a POST on a connection closed under it fails with EPIPE, a client's race
      await new Promise((r) => setTimeout(r, 6_000));
      await concurrentPhase(kernel, db, token, 'steady', STEADY_CHUNKS);
    }
  } finally {
    await stopAll();
    provider?.stop();
    dropDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
    if (SQL_COUNT_FILE) rmSync(SQL_COUNT_FILE, { force: true });
  }
}

await main();
