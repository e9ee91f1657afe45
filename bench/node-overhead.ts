/**
 * Execute overhead of the logic, data, media and engine (trigger, control flow, wait, respond,
 * end) node types through the broker, and the time to validate a 100-step definition (target:
 * under 10 ms p50). Lists every package in nodes/ it does not time, with where it is timed
 * (bench/node-overhead-durable.ts for the types that need a database and a running run).
 *
 * Overhead per type = wall time of `broker.call('node.<type>.execute')` minus the node's own
 * work (the same handler called directly with a context), both p50 and p99 over the same
 * inputs, windows alternated A-B-B-A. The media types do real work (libvips, an ffprobe process)
 * and run MEDIA_ROUNDS calls, storing artifacts in a temp-dir object store.
 * Run: node --import tsx bench/node-overhead.ts
 */
import { ServiceBroker } from 'moleculer';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { attachKernel, type KernelContext } from '../kernel/context.ts';
import { LocalDiskObjectStore } from '../kernel/objects/local-disk.ts';
import { nodeDeclarations } from '../kernel/nodes/declarations.ts';
import { checkDefinition, type DefinitionBody } from '../plugins/workflows/definitions/validate.ts';
import type { NodeTypeDescription } from '../plugins/workflows/engine/node-types.ts';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2000);
const MEDIA_ROUNDS = Number(process.env.BENCH_MEDIA_ROUNDS ?? 200);
const rows = Array.from({ length: 20 }, (_, i) => ({ id: i, group: i % 3 ? 'a' : 'b', amount: i * 1.5, email: `u${i % 7}@x.org`, at: `2025-01-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z` }));
const CASES: Record<string, Record<string, unknown>> = {
  filter: { conditions: [{ field: 'amount', operator: 'gt', value: 5 }, { field: 'email', operator: 'matches', value: '^u[0-3]@' }] },
  sort: { keys: [{ field: 'group' }, { field: 'amount', type: 'number', order: 'desc' }] },
  limit: { max: 5 },
  split: { mode: 'chunks', size: 4 },
  aggregate: { group_by: ['group'], aggregations: [{ op: 'sum', field: 'amount' }, { op: 'count' }] },
  dedupe: { keys: ['email'] },
  datetime: { op: 'add', datetime: '2025-03-29T12:00:00', zone: 'Europe/Berlin', amount: { days: 1 } },
  loop: { items: rows, batch_size: 5, branches: { body: 'b' } },
  extractfromfile: { content: Buffer.from(`id,amount\n${rows.map((r) => `${r.id},${r.amount}`).join('\n')}\n`).toString('base64'), format: 'csv' },
  // the engine's own step types (trigger, control flow, pauses, answers): packages in nodes/ like the rest
  trigger: {},
  webhook: {},
  condition: { expression: 7, operator: 'gt', value: 5, branches: { true: 'a', false: 'b' } },
  switch: { value: 'b', cases: [{ equals: 'a', next: 'x' }, { equals: 'b', next: 'y' }], default: 'z' },
  merge: { mode: 'array' },
  transform: { set: { a: 1, b: 'two', c: [3] }, base: { keep: true } },
  parallel: {},
  wait: { wait_type: 'timer', seconds: 30 },
  respond: { status: 200, headers: { 'x-bench': '1' }, body: { ok: true } },
  stop: { message: 'done' },
  end: { output: { ok: true } },
  note: {},
};
const png = (await sharp({ create: { width: 64, height: 64, channels: 3, background: '#08f' } }).png().toBuffer()).toString('base64');
const wav = execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'sine=duration=0.2', '-f', 'wav', '-']).toString('base64');
const mp4 = execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=5:duration=0.4', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', 'frag_keyframe+empty_moov', '-f', 'mp4', '-']).toString('base64');
const MEDIA_CASES: Record<string, Record<string, unknown>> = {
  image: { operation: 'resize', content: png, width: 16 },
  media: { content: png, branches: { image: 'next' } },
  audio: { operation: 'metadata', content: wav },
  video: { operation: 'metadata', content: mp4 },
};
Object.assign(CASES, MEDIA_CASES);
const roundsOf = (type: string) => (type in MEDIA_CASES ? MEDIA_ROUNDS : ROUNDS);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

const broker = new ServiceBroker({ logger: false, nodeID: 'bench-nodes' });
const services = new Map<string, any>();
for (const type of Object.keys(CASES)) {
  const mod = await import(join(ROOT, 'nodes', type, 'index.ts'));
  services.set(type, broker.createService(mod.default));
}
const objectsDir = mkdtempSync(join(tmpdir(), 'bench-objects-'));
attachKernel(broker, { objects: new LocalDiskObjectStore({ dir: objectsDir }) } as unknown as KernelContext);
await broker.start();

const params = (type: string) => ({ config: CASES[type], input: rows, inputs: type === 'merge' ? { a: rows.slice(0, 3), b: rows.slice(3, 6) } : {}, context: { run_id: 'r-bench', step_id: 's', entity_id: 'e-1', workspace_id: null, attempt: 1 } });

async function viaBroker(type: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await broker.call(`node.${type}.execute`, params(type));
    out.push(performance.now() - t0);
  }
  return out;
}

async function direct(type: string, n: number): Promise<number[]> {
  const svc = services.get(type);
  const handler = svc.schema.actions.execute.handler;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const ctx = { params: params(type), broker, service: svc };
    const t0 = performance.now();
    await handler.call(svc, ctx);
    out.push(performance.now() - t0);
  }
  return out;
}

console.log(`node execute overhead through the broker (${ROUNDS} calls each way per type, ${MEDIA_ROUNDS} for media types, windows A-B-B-A; ms)`);
console.log('type             own p50  own p99  call p50  call p99  overhead p50  overhead p99');
const figures: Record<string, { own_p50: number; own_p99: number; call_p50: number; call_p99: number; overhead_p50: number; overhead_p99: number }> = {};
const r3 = (x: number) => Math.round(x * 1000) / 1000;
for (const type of Object.keys(CASES)) {
  const warm = Math.min(200, roundsOf(type) / 10);
  await viaBroker(type, warm);
  await direct(type, warm);
  const half = roundsOf(type) / 2;
  const a1 = await direct(type, half);
  const b1 = await viaBroker(type, half);
  const b2 = await viaBroker(type, half);
  const a2 = await direct(type, half);
  const own = [...a1, ...a2];
  const call = [...b1, ...b2];
  const f = (x: number) => x.toFixed(3).padStart(8);
  figures[type] = { own_p50: r3(pct(own, 50)), own_p99: r3(pct(own, 99)), call_p50: r3(pct(call, 50)), call_p99: r3(pct(call, 99)), overhead_p50: r3(pct(call, 50) - pct(own, 50)), overhead_p99: r3(pct(call, 99) - pct(own, 99)) };
  console.log(`${type.padEnd(16)} ${f(pct(own, 50))} ${f(pct(own, 99))} ${f(pct(call, 50))}  ${f(pct(call, 99))}  ${f(pct(call, 50) - pct(own, 50))}      ${f(pct(call, 99) - pct(own, 99))}`);
}
await broker.stop();
rmSync(objectsDir, { recursive: true, force: true });

// validation of a 100-step definition: trigger, then 99 steps of the node types above in a chain
const declarations = await nodeDeclarations(join(ROOT, 'nodes'));
const byType = new Map(declarations.map((d) => [d.type, d as NodeTypeDescription]));
const chainTypes = ['filter', 'sort', 'limit', 'aggregate', 'dedupe', 'datetime', 'transform', 'condition', 'switch', 'merge'];
const steps: DefinitionBody['steps'] = [{ id: 's0', type: 'trigger', config: {}, next: ['s1'] }];
for (let i = 1; i < 100; i++) {
  const type = chainTypes[i % chainTypes.length];
  const next = i < 99 ? [`s${i + 1}`] : [];
  const config: Record<string, unknown> =
    type === 'transform' ? { set: { a: `{{s${i - 1}.output}}` } }
    : type === 'condition' ? { expression: `{{s${i - 1}.output.count}}`, operator: 'gt', value: 1, branches: { true: next[0] } }
    : type === 'switch' ? { value: '{{trigger.kind}}', cases: [{ equals: 'a', next: next[0] }] }
    : type === 'merge' ? {}
    : type === 'datetime' ? CASES.datetime
    : { ...(CASES[type] ?? {}), items: `{{s${i - 1}.output.items}}` };
  if ((type === 'condition' || type === 'switch') && next.length === 0) Object.assign(config, type === 'condition' ? { branches: {} } : { cases: [{ equals: 'a', next: 's0' }] });
  steps.push({ id: `s${i}`, type, config, next });
}
const body: DefinitionBody = { name: 'bench', steps };
const first = checkDefinition(body, (t) => byType.get(t));
if (first.problems.length && !first.problems.every((p) => p.type === 'branch_not_in_next')) console.log('definition problems:', first.problems.slice(0, 3));
const times: number[] = [];
for (let i = 0; i < 300; i++) {
  const t0 = performance.now();
  checkDefinition(body, (t) => byType.get(t));
  times.push(performance.now() - t0);
}
console.log(`validation of a 100-step definition: p50 ${pct(times, 50).toFixed(3)} ms, p99 ${pct(times, 99).toFixed(3)} ms (target p50 < 10 ms)`);

// every package in nodes/: measured here, or where (and why) it is measured elsewhere
const ELSEWHERE: Record<string, string> = {
  notify: 'bench/node-overhead-durable.ts (in-app notification stored in PostgreSQL through the notifications package)',
  workflow_project: 'bench/node-overhead-durable.ts (a document row locked and updated in PostgreSQL)',
  workflow_action_grant: 'bench/node-overhead-durable.ts (needs a running run of a real kernel: workflows.useGrant)',
  subworkflow: 'bench/node-overhead-durable.ts (not timed there: each execute starts and awaits a whole child run)',
  foreach_subworkflow: 'bench/node-overhead-durable.ts (not timed there: each execute starts and awaits whole child runs)',
  code: 'bench/code-node.ts (the sandbox: isolate time vs broker overhead)',
  agent: 'bench/agent-loop.ts (the loop against the scripted provider: overhead per round)',
  llm: 'not timed as a node: a model turn against a provider; the turn machinery is timed by bench/agent-loop.ts and bench/chat-stream.ts',
  classifier: 'not timed as a node: one model turn (as llm)',
  extract: 'not timed as a node: one model turn (as llm)',
  tool: 'not timed as a node: calls another node type or package action (their overhead is the rows here)',
  http: 'not timed as a node: its wall is the remote server (outbound HTTP guard, no local work to subtract)',
};
const packages = readdirSync(join(ROOT, 'nodes'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const missing = packages.filter((p) => !(p in figures) && !(p in ELSEWHERE));
console.log(`node packages: ${packages.length}; measured here: ${Object.keys(figures).length}; elsewhere:`);
for (const p of packages.filter((p) => p in ELSEWHERE)) console.log(`  ${p.padEnd(22)} ${ELSEWHERE[p]}`);
if (missing.length) console.log(`  not covered: ${missing.join(', ')}`);
console.log(JSON.stringify({ bench: 'node-overhead', rounds: ROUNDS, media_rounds: MEDIA_ROUNDS, overhead_ms: figures, validation_100_steps_ms: { p50: r3(pct(times, 50)), p99: r3(pct(times, 99)) }, elsewhere: Object.fromEntries(packages.filter((p) => p in ELSEWHERE).map((p) => [p, ELSEWHERE[p]])), not_covered: missing }));
