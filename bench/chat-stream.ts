/**
 * Chat streams: how much a `POST /api/v1/chat/stream` adds to the provider's own first token,
 * and 500 streams open at once on one node.
 *
 *   node --import tsx bench/chat-stream.ts [--sequential 60] [--concurrent 500] [--chunks 20] [--interval 100] [--ramp 2]
 *
 * The kernel runs detached (`node kernel/main.ts`, PostgreSQL, in-process queue, the work worker
 * at WORKER_WORK_CONCURRENCY = `--slots`, default the concurrent streams: a chat run holds a work slot
 * from its start to its end). A
 * streaming OpenAI-compatible provider in this process (a key's base_url, allow-listed) notes
 * when it writes each answer's first token, then sends `--chunks` tokens `--interval` ms apart.
 * Added latency = when the client reads a `text.delta` frame minus when the provider wrote that
 * token, both on this process's clock: the SDK's parsing, the models stream, the agent loop, the
 * run's live events, the chat relay and the SSE write. One at a time, the first token of each
 * answer (target p50 < 3 ms, p99 < 15 ms). Then `--concurrent` streams opened over `--ramp`
 * seconds, each answered over chunks x interval, so that many are open together: every token's
 * added latency (target: no error, p99 < 50 ms). Memory per open stream = the kernel's peak RSS
 * minus its RSS before, over the streams.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { launchKernel } from './lib/kernel-process.ts';
import { stopAll, waitForStatus } from './lib/processes.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { percentile, round } from './lib/stats.ts';

const { values: args } = parseArgs({ options: { sequential: { type: 'string', default: '60' }, concurrent: { type: 'string', default: '500' }, chunks: { type: 'string', default: '20' }, interval: { type: 'string', default: '100' }, ramp: { type: 'string', default: '2' }, slots: { type: 'string' } } });
const SEQUENTIAL = Number(args.sequential);
const CONCURRENT = Number(args.concurrent);
/** the work worker's slots (WORKER_WORK_CONCURRENCY): a chat run holds one from its start to its end */
const SLOTS = Number(args.slots ?? Math.min(1024, Math.max(4, CONCURRENT)));

/** per `<marker>#<token index>`: when the provider wrote that token */
const sentAt = new Map<string, number>();

function provider(chunks: number, intervalMs: number) {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as { messages: { role: string; content: unknown }[] };
      const last = body.messages.filter((m) => m.role === 'user').at(-1);
      const marker = String(typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content)).match(/m-[a-z0-9-]+/)?.[0] ?? '?';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
        res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      let sent = 0;
      const next = () => {
        if (res.destroyed) return;
        sentAt.set(`${marker}#${sent}`, performance.now());
        chunk({ content: `tok${sent} ` });
        if (++sent < chunks) return void setTimeout(next, intervalMs);
        chunk({}, 'stop');
        res.end('data: [DONE]\n\n');
      };
      next();
    });
  });
}

/** Opens one chat stream; answers when each token's text.delta frame was read, and whether it ended well. */
async function stream(api: string, token: string, marker: string): Promise<{ arrivals: Map<number, number>; ok: boolean; error?: string; requested: number; ended: number }> {
  const requested = performance.now();
  const form = new FormData();
  form.set('message', `please answer ${marker}`);
  form.set('workspace_context', 'false');
  const res = await fetch(`${api}/api/v1/chat/stream`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  const arrivals = new Map<number, number>();
  if (res.status !== 200 || !res.body) return { arrivals, ok: false, error: `status ${res.status}: ${await res.text()}`, requested, ended: performance.now() };
  let text = '';
  let scanned = 0;
  const decoder = new TextDecoder();
  for await (const part of res.body) {
    const now = performance.now();
    text += decoder.decode(part, { stream: true });
    // a frame may carry several tokens (deltas read in the same event-loop turn go out together)
    for (const m of text.slice(scanned).matchAll(/event: text\.delta\ndata: (\{.*\})\n\n/g)) {
      for (const t of (JSON.parse(m[1]) as { text: string }).text.matchAll(/tok(\d+) /g)) if (!arrivals.has(Number(t[1]))) arrivals.set(Number(t[1]), now);
    }
    // the next read starts after the last whole frame (a frame split across reads is read again)
    scanned = Math.max(scanned, text.lastIndexOf('\n\n') + 2);
  }
  const ended = text.includes('event: message.end') && !text.includes('event: error');
  return { arrivals, ok: ended, error: ended ? undefined : text.slice(-300), requested, ended: performance.now() };
}

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

/** CPU time (user + system) of a process so far, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
}

async function main(): Promise<void> {
  const server = provider(Number(args.chunks), Number(args.interval));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const providerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const db = `bench_chat_${process.pid}`;
  createDatabase(db);
  const dataDir = mkdtempSync(join(tmpdir(), 'wao-bench-chat-'));
  const kernel = await launchKernel({
    via: 'node', dataDir, logFile: join(dataDir, 'kernel.log'), nodeFlags: process.env.BENCH_KERNEL_NODE_FLAGS?.split(' ').filter(Boolean),
    env: { DATABASE_URL: databaseUrl(db), ADMIN_PASSWORD: 'bench-password-0123', MODEL_BASE_URL_ALLOW: '127.0.0.1', WORKER_WORK_CONCURRENCY: String(SLOTS), DATABASE_POOL_MAX: '20' },
  });
  try {
    await waitForStatus(`${kernel.apiUrl}/health/ready`, 200, { proc: kernel.proc, timeoutMs: 120_000 });
    const login = await (await fetch(`${kernel.apiUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@localhost', password: 'bench-password-0123' }) })).json() as { access_token: string };
    const token = login.access_token;
    const key = await fetch(`${kernel.apiUrl}/api/v1/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'bench', provider: 'openai_compatible', base_url: providerUrl, api_key: 'bench-key-0123', default_model: 'bench', is_default: true }) });
    if (key.status !== 201) throw new Error(`key: ${key.status} ${await key.text()}`);

    for (let i = 0; i < 5; i++) await stream(kernel.apiUrl, token, `m-warm${i}`);
    const added: number[] = [];
    const firstFromRequest: number[] = [];
    let failed = 0;
    for (let i = 0; i < SEQUENTIAL; i++) {
      const marker = `m-seq${i}`;
      const r = await stream(kernel.apiUrl, token, marker);
      if (!r.ok || !r.arrivals.has(0)) failed++;
      else {
        added.push(r.arrivals.get(0)! - sentAt.get(`${marker}#0`)!);
        firstFromRequest.push(r.arrivals.get(0)! - r.requested);
      }
    }
    console.log(JSON.stringify({ phase: 'one at a time', streams: SEQUENTIAL, failed, added_first_delta_ms: { p50: round(percentile(added, 50), 3), p99: round(percentile(added, 99), 3) }, first_delta_from_request_ms: { p50: round(percentile(firstFromRequest, 50), 3), p99: round(percentile(firstFromRequest, 99), 3) } }));

    const idle = rssKiB(kernel.proc.pgid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKiB(kernel.proc.pgid))), 100);
    const started = performance.now();
    const cpu = { kernel: cpuMs(kernel.proc.pgid), bench: process.cpuUsage() };
    const rampMs = Number(args.ramp) * 1000;
    const results = await Promise.all(Array.from({ length: CONCURRENT }, async (_, i) => {
      await new Promise((r) => setTimeout(r, (rampMs * i) / CONCURRENT));
      return { ...(await stream(kernel.apiUrl, token, `m-par${i}`)), marker: `m-par${i}` };
    }));
    clearInterval(sampler);
    const wallMs = performance.now() - started;
    const benchCpu = process.cpuUsage(cpu.bench);
    const kernelCpuMs = cpuMs(kernel.proc.pgid) - cpu.kernel;
    const busy = { kernel_pct_of_a_core: round((kernelCpuMs / wallMs) * 100), bench_process_pct_of_a_core: round(((benchCpu.user + benchCpu.system) / 1000 / wallMs) * 100) };
    const ok = results.filter((r) => r.ok);
    const rampEnd = started + rampMs;
    const timed = ok.flatMap((r) => [...r.arrivals].map(([i, at]) => ({ sent: sentAt.get(`${r.marker}#${i}`)!, added: at - sentAt.get(`${r.marker}#${i}`)! })));
    const addedParallel = timed.map((x) => x.added);
    // tokens sent once every stream was open: streaming alone, without the openings' work
    const afterRamp = timed.filter((x) => x.sent > rampEnd).map((x) => x.added);
    const errors = results.filter((r) => !r.ok).map((r) => r.error);
    // from the request: the time before the provider's first token (HTTP, stores, the run's start,
    // its wait for a work slot, the model call's set-up), the first text.delta, the whole stream
    const lastToken = Number(args.chunks) - 1;
    const fromRequest = (f: (r: (typeof ok)[number]) => number) => {
      const v = ok.map(f).filter(Number.isFinite);
      return { p50: round(percentile(v, 50), 1), p99: round(percentile(v, 99), 1), max: round(Math.max(...v), 1) };
    };
    console.log(JSON.stringify({
      phase: 'concurrent', streams: CONCURRENT, failed: errors.length, first_error: errors[0] ?? null, seconds: round((performance.now() - started) / 1000),
      added_delta_ms: { p50: round(percentile(addedParallel, 50), 3), p99: round(percentile(addedParallel, 99), 3), deltas: addedParallel.length },
      added_delta_after_ramp_ms: { p50: round(percentile(afterRamp, 50), 3), p99: round(percentile(afterRamp, 99), 3), deltas: afterRamp.length },
      from_request_ms: {
        provider_first_token: fromRequest((r) => sentAt.get(`${r.marker}#0`)! - r.requested),
        first_delta: fromRequest((r) => r.arrivals.get(0)! - r.requested),
        whole_stream: fromRequest((r) => r.ended - r.requested),
        whole_stream_less_provider: fromRequest((r) => r.ended - r.requested - (sentAt.get(`${r.marker}#${lastToken}`)! - sentAt.get(`${r.marker}#0`)!)),
      },
      work_slots: SLOTS,
      cpu: busy, kernel_cpu_ms: { total: round(kernelCpuMs), per_stream: round(kernelCpuMs / CONCURRENT, 2), per_delta: round(kernelCpuMs / Math.max(1, addedParallel.length), 3) },
      kernel_rss_mib: { idle: round(idle / 1024), peak: round(peak / 1024) }, kib_per_open_stream: round((peak - idle) / CONCURRENT, 1),
    }));
  } finally {
    await stopAll();
    server.close();
    dropDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
