/**
 * The `code` node and the sandbox: cold and warm start, and the execute overhead through the
 * broker, on one kernel in this process (sandbox and node served locally, calls through
 * `broker.call` with the full middleware chain).
 *
 *   node --import tsx bench/code-node.ts [--cold 40] [--warm 400]
 *
 * cold: each call for a new entity, so the sandbox makes a new isolate (warm isolates are kept
 * per entity only). warm: the same entity again and again: a kept isolate, a fresh context.
 * Per call, `node.code.execute` (wall), then `sandbox.run` with the same snippet (wall and its
 * own `duration_ms`: context, compile, run inside the isolate). Overheads:
 *   sandbox.run through the broker = its wall - its duration_ms (the runner, the gate, the call)
 *   the node through the broker     = node wall - the paired sandbox.run's duration_ms
 * Reference: the same snippet on raw isolated-vm in this process (a kept isolate, a new context,
 * compile, run), i.e. what any isolated-vm sandbox pays.
 */
import ivm from 'isolated-vm';
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startTestKernel } from '../test/helpers/kernel.ts';
import { linkedPackageRoot } from '../test/helpers/packages.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { percentile, round } from './lib/stats.ts';

const { values: args } = parseArgs({ options: { cold: { type: 'string', default: '40' }, warm: { type: 'string', default: '400' } } });
const COLD = Number(args.cold);
const WARM = Number(args.warm);
const CODE = 'return { n: input.n + 1, tags: input.tags.map((t) => t.toUpperCase()) };';
const INPUT = { n: 41, tags: ['a', 'b', 'c'] };

const db = `bench_code_node_${process.pid}`;
createDatabase(db);
const pkgs = linkedPackageRoot(['sandbox/runner', 'nodes/code']);
const kernel = await startTestKernel({ roots: [pkgs.root], env: { DATABASE_URL: databaseUrl(db), LOG_LEVEL: 'fatal', SANDBOX_WARM_ISOLATES: '8' } });
const broker = kernel.broker;

interface Sample { node: number; sandbox: number; inside: number }
async function sample(entity: string, step: number): Promise<Sample> {
  const context = { run_id: 'bench', step_id: `s${step}`, entity_id: entity, workspace_id: null, attempt: 1 };
  let t = performance.now();
  const out = (await broker.call('node.code.execute', { config: { code: CODE }, input: INPUT, context })) as { output: { n: number } };
  const node = performance.now() - t;
  if (out.output.n !== 42) throw new Error(`unexpected output ${JSON.stringify(out)}`);
  t = performance.now();
  const direct = (await broker.call('sandbox.run', { code: CODE, input: INPUT, entity_id: entity })) as { duration_ms: number };
  return { node, sandbox: performance.now() - t, inside: direct.duration_ms };
}

const p = (values: number[]) => ({ p50: round(percentile(values, 50), 3), p99: round(percentile(values, 99), 3) });
function summary(samples: Sample[]) {
  return {
    node_wall_ms: p(samples.map((s) => s.node)),
    sandbox_wall_ms: p(samples.map((s) => s.sandbox)),
    inside_isolate_ms: p(samples.map((s) => s.inside)),
    sandbox_broker_overhead_ms: p(samples.map((s) => s.sandbox - s.inside)),
    node_broker_overhead_ms: p(samples.map((s) => s.node - s.inside)),
  };
}

try {
  await sample('warmup', 0);
  const cold: number[] = [];
  for (let i = 0; i < COLD; i++) {
    const t = performance.now();
    await broker.call('node.code.execute', { config: { code: CODE }, input: INPUT, context: { run_id: 'bench', step_id: 'c', entity_id: `cold-${i}`, workspace_id: null, attempt: 1 } });
    cold.push(performance.now() - t);
  }
  const warm: Sample[] = [];
  for (let i = 0; i < WARM; i++) warm.push(await sample('warm', i));

  const iso = new ivm.Isolate({ memoryLimit: 64 });
  const raw: number[] = [];
  for (let i = 0; i < WARM; i++) {
    const t = performance.now();
    const ctx = await iso.createContext();
    await ctx.global.set('__in', JSON.stringify(INPUT));
    const script = await iso.compileScript(`(async function (input) { ${CODE} })(JSON.parse(__in)).then(JSON.stringify)`);
    await script.run(ctx, { promise: true, timeout: 1000 });
    ctx.release();
    raw.push(performance.now() - t);
  }
  iso.dispose();

  const figures = {
    bench: 'code-node',
    cold_start_node_ms: p(cold),
    warm: summary(warm),
    raw_isolated_vm_warm_ms: p(raw),
    runs: { cold: COLD, warm: WARM },
  };
  console.log(`code node, cold start (new isolate per call):      p50 ${figures.cold_start_node_ms.p50} ms  p99 ${figures.cold_start_node_ms.p99} ms`);
  console.log(`code node, warm start (kept isolate, new context): p50 ${figures.warm.node_wall_ms.p50} ms  p99 ${figures.warm.node_wall_ms.p99} ms`);
  console.log(`  inside the isolate (context, compile, run):       p50 ${figures.warm.inside_isolate_ms.p50} ms  p99 ${figures.warm.inside_isolate_ms.p99} ms`);
  console.log(`  sandbox.run overhead through the broker:          p50 ${figures.warm.sandbox_broker_overhead_ms.p50} ms  p99 ${figures.warm.sandbox_broker_overhead_ms.p99} ms`);
  console.log(`  code node overhead through the broker:            p50 ${figures.warm.node_broker_overhead_ms.p50} ms  p99 ${figures.warm.node_broker_overhead_ms.p99} ms`);
  console.log(`raw isolated-vm in process (reference):            p50 ${figures.raw_isolated_vm_warm_ms.p50} ms  p99 ${figures.raw_isolated_vm_warm_ms.p99} ms`);
  console.log(JSON.stringify(figures));
} finally {
  await kernel.close();
  pkgs.remove();
  dropDatabase(db);
  rmSync(kernel.dataDir, { recursive: true, force: true });
}
