/**
 * A moleculer action call across the NATS transporter (nats-server on 127.0.0.1:4222) between
 * two local processes, both brokers built from moleculer.config.ts (JSON serializer, a unique
 * namespace). Process B (detached) serves `bench.echo`; this process calls it:
 *   - sequentially, one call at a time, for latency p50/p99;
 *   - with N concurrent callers, in windows, for calls/s.
 * The same is measured for a raw NATS publish/reply round trip to B (windows alternated A-B-B-A,
 * A = moleculer, B = raw), so the broker's own cost can be told from the transport's.
 *
 *   node --import tsx bench/nats-call.ts [--calls 4000] [--concurrency 32] [--windows 4] [--seconds 6]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ServiceBroker } from 'moleculer';
import { connect, type NatsConnection } from 'nats';
import { loadConfig } from '../config/load.ts';
import { brokerOptions } from '../moleculer.config.ts';
import { PROJECT_ROOT } from './lib/kernel-process.ts';
import { pathWithThisNode, startDetached, stopAll, tailOf } from './lib/processes.ts';
import { abbaOrder, mean, percentile, round } from './lib/stats.ts';

const NATS_URL = 'nats://127.0.0.1:4222';

const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '32' },
    windows: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '6' },
  },
});
const calls = Number(args.calls);
const concurrency = Number(args.concurrency);
const windows = Number(args.windows);
const seconds = Number(args.seconds);
if (!(calls >= 100) || !(concurrency >= 1) || !(windows >= 4) || !(seconds > 0)) throw new Error('--calls >= 100, --concurrency >= 1, --windows >= 4, --seconds > 0');

type Call = (seq: number) => Promise<void>;

function checkEcho(sent: number, got: unknown): void {
  if ((got as { seq?: unknown })?.seq !== sent) throw new Error(`echo answered ${JSON.stringify(got)} to seq ${sent}`);
}

function moleculerCall(broker: ServiceBroker): Call {
  return async (seq) => checkEcho(seq, await broker.call('bench.echo', { seq, text: 'hello', ok: true }));
}

/**
 * Raw NATS baseline shaped like moleculer's transporter: publish a request with a reply subject,
 * B answers on it, replies are matched by id. (nats.js `request()` is not used: its per-request
 * inbox and timer cost several times more than this pattern, so it would be no floor.)
 */
function rawCall(nc: NatsConnection, subject: string): Call {
  const pending = new Map<number, (body: unknown) => void>();
  const inbox = `${subject}.reply.${process.pid}`;
  nc.subscribe(inbox, {
    callback: (_err, msg) => {
      const body = msg.json<{ id: number; params: unknown }>();
      pending.get(body.id)?.(body.params);
      pending.delete(body.id);
    },
  });
  let nextId = 0;
  return async (seq) => {
    const id = nextId++;
    const answered = new Promise<unknown>((resolve) => pending.set(id, resolve));
    nc.publish(subject, JSON.stringify({ id, params: { seq, text: 'hello', ok: true } }), { reply: inbox });
    checkEcho(seq, await answered);
  };
}

/** `count` calls one after the other; returns each call's latency in ms. */
async function sequential(call: Call, count: number, firstSeq: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await call(firstSeq + i);
    latencies.push(performance.now() - t);
  }
  return latencies;
}

/** `callers` loops calling until the window ends; returns calls/s and latencies. */
async function concurrent(call: Call, callers: number, durationMs: number): Promise<{ callsPerSec: number; latencies: number[] }> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  let seq = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await call(seq++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { callsPerSec: latencies.length / ((performance.now() - started) / 1000), latencies };
}

const ms = (values: number[]) => ({ p50: round(percentile(values, 50), 3), p99: round(percentile(values, 99), 3), mean: round(mean(values), 3) });

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-nats-'));
  const namespace = `bench_nats_${process.pid}_${Date.now()}`;
  const env = { NAMESPACE: namespace, TRANSPORTER: NATS_URL, LOG_LEVEL: 'warn', SHUTDOWN_GRACE_SECONDS: '2' };
  let broker: ServiceBroker | undefined;
  let nc: NatsConnection | undefined;
  try {
    nc = await connect({ servers: NATS_URL.slice(7), timeout: 5_000 }); // fails here when nats-server is down
    await nc.flush();
    const echo = startDetached('echo-node', process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'servers/echo-node.ts')], {
      env: { ...process.env, PATH: pathWithThisNode(), ...env, NODE_ID: `${namespace}-B` },
      cwd: PROJECT_ROOT,
      logFile: join(work, 'echo-node.log'),
    });
    broker = new ServiceBroker(brokerOptions(loadConfig({ ...process.env, ...env, NODE_ID: `${namespace}-A` }, '/nonexistent/.env')));
    await broker.start();
    await Promise.race([
      broker.waitForServices('bench', 60_000),
      echo.exited.then((code) => Promise.reject(new Error(`echo node exited (${code}):\n${tailOf(echo.logFile)}`))),
    ]);
    const sides = { A: { name: 'moleculer', call: moleculerCall(broker) }, B: { name: 'raw nats', call: rawCall(nc, `${namespace}.raw-echo`) } };

    for (const side of Object.values(sides)) await sequential(side.call, 500, 0); // warm-up
    const seqLatencies: Record<'A' | 'B', number[]> = { A: [], B: [] };
    for (const side of abbaOrder(4)) seqLatencies[side].push(...(await sequential(sides[side].call, Math.ceil(calls / 2), 0)));
    console.log(`sequential, ${seqLatencies.A.length} calls each (ms):`);
    for (const side of ['A', 'B'] as const) {
      const s = ms(seqLatencies[side]);
      console.log(`  ${sides[side].name.padEnd(9)} p50 ${s.p50}  p99 ${s.p99}  mean ${s.mean}`);
    }

    console.log(`\n${concurrency} concurrent callers, ${windows} windows of ${seconds} s (A = moleculer, B = raw nats):`);
    const conc: { side: 'A' | 'B'; callsPerSec: number; latencies: number[] }[] = [];
    for (const [i, side] of abbaOrder(windows).entries()) {
      const r = await concurrent(sides[side].call, concurrency, seconds * 1000);
      conc.push({ side, ...r });
      const s = ms(r.latencies);
      console.log(`  window ${i + 1} ${side} ${sides[side].name.padEnd(9)} ${round(r.callsPerSec, 0).toString().padStart(6)} calls/s  p50 ${s.p50} ms  p99 ${s.p99} ms`);
    }
    const rate = (side: 'A' | 'B') => mean(conc.filter((c) => c.side === side).map((c) => c.callsPerSec));
    const concMs = (side: 'A' | 'B') => ms(conc.filter((c) => c.side === side).flatMap((c) => c.latencies));
    const seqA = ms(seqLatencies.A);
    const seqB = ms(seqLatencies.B);
    console.log(`\nmoleculer over NATS: sequential p50 ${seqA.p50} ms, p99 ${seqA.p99} ms; ${round(rate('A'), 0)} calls/s with ${concurrency} callers (p50 ${concMs('A').p50} ms, p99 ${concMs('A').p99} ms)`);
    console.log(`raw NATS pub/reply:  sequential p50 ${seqB.p50} ms, p99 ${seqB.p99} ms; ${round(rate('B'), 0)} calls/s with ${concurrency} callers`);
    console.log(`moleculer/raw calls/s ratio ${round(rate('A') / rate('B'), 3)}`);
    console.log(
      JSON.stringify({
        bench: 'nats-call',
        sequentialCalls: seqLatencies.A.length,
        moleculer: { p50Ms: seqA.p50, p99Ms: seqA.p99, meanMs: seqA.mean, callsPerSec: round(rate('A'), 0), concurrentP50Ms: concMs('A').p50, concurrentP99Ms: concMs('A').p99 },
        rawNats: { p50Ms: seqB.p50, p99Ms: seqB.p99, meanMs: seqB.mean, callsPerSec: round(rate('B'), 0) },
        concurrency,
        windowSeconds: seconds,
        windows: conc.map((c) => ({ side: sides[c.side].name, callsPerSec: round(c.callsPerSec, 0) })),
        ratioMoleculerToRaw: round(rate('A') / rate('B'), 3),
      }),
    );
  } finally {
    await broker?.stop().catch(() => undefined);
    await nc?.close().catch(() => undefined);
    await stopAll(10_000);
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench/nats-call failed: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
