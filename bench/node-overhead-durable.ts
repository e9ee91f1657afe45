/**
 * Execute overhead through the broker of the node types that need a database and a running
 * workflow run: `notify` (in-app, stored by the notifications package), `workflow_project`
 * (a document row locked and updated in PostgreSQL) and `workflow_action_grant` (workflows.useGrant
 * on the run: no grant, so the `ask` answer), on one kernel in this process on a throw-away
 * PostgreSQL database (test-auth, workspaces, workflows, notifications and these node packages).
 *
 * A workflow trigger -> hold -> grant -> end is started; `hold` (a bench-only node type) keeps
 * the run `running` and hands the bench the engine's run context (run, entity, owner, workflow),
 * which the timed calls carry. Overhead per type = wall of `broker.call('node.<type>.execute')`
 * (the kernel's full middleware chain) minus the node's own work (the same handler called
 * directly with a context of the same broker, so its own calls to other packages are included),
 * p50 and p99 over the same inputs, windows alternated A-B-B-A, as bench/node-overhead.ts.
 *
 * `subworkflow` and `foreach_subworkflow` are listed, not timed: each execute starts whole child
 * runs (queued and run by the engine, checkpointed on the engine's in-flight step) and awaits
 * them, so its wall is the child runs', not a node's.
 *
 *   node --import tsx bench/node-overhead-durable.ts [--rounds 400]
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Context } from 'moleculer';
import { startWorkflowsKernel } from '../test/workflows-helpers.ts';
import type { TestDatabase } from '../test/helpers/pg.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { percentile, round } from './lib/stats.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '400' } } });
const ROUNDS = Number(args.rounds);
const OWNER = 'owner-token';

const holders = globalThis as unknown as { __benchHold?: { context: Record<string, unknown>; release: () => void }[] };
holders.__benchHold = [];
const HOLD_NODE: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'bench-node-hold', version: '1.0.0', type: 'module', capability: { kind: 'node', roles: ['api', 'work'] } }),
  'index.js': `export default {
  name: 'node.hold',
  metadata: { nodeType: { type: 'hold', version: 1, category: 'test', config_schema: { type: 'object', additionalProperties: false }, outputs: ['main'], uncertain_effect: false, checkpoints: true } },
  actions: { execute: { timeout: 0, params: { config: 'object', input: { type: 'any', optional: true }, inputs: { type: 'object', optional: true }, context: { type: 'object', optional: true } },
    async handler(ctx) { await new Promise((release) => globalThis.__benchHold.push({ context: ctx.params.context, release })); return { output: null }; } } },
};
`,
};

const dbName = `bench_node_durable_${process.pid}`;
createDatabase(dbName);
const db = { url: databaseUrl(dbName), name: dbName, drop: async () => dropDatabase(dbName) } as TestDatabase;
const TYPES = ['notify', 'workflow_project', 'workflow_action_grant'];
const NOT_TIMED: Record<string, string> = {
  subworkflow: 'each execute starts a whole child run (queued, run by the engine) and awaits it: its wall is the child run',
  foreach_subworkflow: 'each execute starts whole child runs (a bounded number at once) and awaits them: its wall is the child runs',
};

let k: Awaited<ReturnType<typeof startWorkflowsKernel>> | undefined;
try {
  k = await startWorkflowsKernel('bench_node_durable', { db, nodes: ['trigger', 'end', ...TYPES], plugins: ['notifications'], extra: { 'node-hold': HOLD_NODE }, env: { LOG_LEVEL: 'fatal' } });
  const broker = k.kernel.broker;
  const wf = await k.createWorkflow(OWNER, {
    name: 'bench durable nodes',
    steps: [
      { id: 'start', type: 'trigger', next: ['hold'] },
      { id: 'hold', type: 'hold', config: {}, next: ['grant'] },
      { id: 'grant', type: 'workflow_action_grant', config: { action: 'bench_action' }, next: ['finish'] },
      { id: 'finish', type: 'end', next: [] },
    ],
  });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: OWNER, json: { input: {} } });
  if (started.status !== 202) throw new Error(`run start answered ${started.status}: ${started.text}`);
  const deadline = Date.now() + 30_000;
  while (!holders.__benchHold.length) {
    if (Date.now() > deadline) throw new Error('the run did not reach its hold step');
    await new Promise((r) => setTimeout(r, 20));
  }
  const run = holders.__benchHold[0].context as { run_id: string; entity_id: string; owner_id?: string | null; workflow_id?: string | null; binding_id?: string | null; workspace_id: string | null };
  const base = { run_id: run.run_id, entity_id: run.entity_id, workspace_id: run.workspace_id ?? null, workflow_id: run.workflow_id ?? null, binding_id: run.binding_id ?? null, owner_id: run.owner_id ?? null, attempt: 1 };
  const CASES: Record<string, { config: Record<string, unknown>; step_id: string; check: (out: any) => boolean }> = {
    notify: { config: { message: 'bench notification', title: 'bench' }, step_id: 'tell', check: (o) => o?.output?.channel === 'in_app' && !!o.output.notification_id },
    workflow_project: { config: { operation: 'increment', path: 'counters.bench' }, step_id: 'count', check: (o) => typeof o?.output?.value === 'number' },
    workflow_action_grant: { config: { action: 'bench_action', mode: 'ask' }, step_id: 'grant', check: (o) => o?.runtime_approval_required?.action === 'bench_action' },
  };
  const params = (type: string) => ({ config: CASES[type].config, input: { n: 1 }, inputs: {}, context: { ...base, step_id: CASES[type].step_id } });
  const serviceOf = (type: string) => {
    const svc = broker.services.find((s) => s.name === `node.${type}`);
    if (!svc) throw new Error(`node.${type} is not running`);
    return svc as unknown as { schema: { actions: { execute: { handler: (ctx: Context) => Promise<unknown> } } } };
  };

  async function viaBroker(type: string, n: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const answer = await broker.call(`node.${type}.execute`, params(type));
      out.push(performance.now() - t0);
      if (i === 0 && !CASES[type].check(answer)) throw new Error(`${type}: unexpected answer ${JSON.stringify(answer)}`);
    }
    return out;
  }
  async function direct(type: string, n: number): Promise<number[]> {
    const svc = serviceOf(type);
    const handler = svc.schema.actions.execute.handler;
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const ctx = broker.ContextFactory.create(broker, null as never, params(type), {}) as Context;
      (ctx as unknown as { service: unknown }).service = svc;
      const t0 = performance.now();
      const answer = await handler.call(svc, ctx);
      out.push(performance.now() - t0);
      if (i === 0 && !CASES[type].check(answer)) throw new Error(`${type} (direct): unexpected answer ${JSON.stringify(answer)}`);
    }
    return out;
  }

  const figures: Record<string, Record<string, number>> = {};
  console.log(`durable node execute overhead through the broker (kernel on PostgreSQL, ${ROUNDS} calls each way per type, windows A-B-B-A; ms)`);
  console.log('type                   own p50  own p99  call p50  call p99  overhead p50  overhead p99');
  const f = (x: number) => x.toFixed(3).padStart(8);
  for (const type of TYPES) {
    const warm = Math.max(10, Math.min(100, ROUNDS / 10));
    await viaBroker(type, warm);
    await direct(type, warm);
    const half = Math.ceil(ROUNDS / 2);
    const a1 = await direct(type, half);
    const b1 = await viaBroker(type, half);
    const b2 = await viaBroker(type, half);
    const a2 = await direct(type, half);
    const own = [...a1, ...a2];
    const call = [...b1, ...b2];
    const [o50, o99, c50, c99] = [percentile(own, 50), percentile(own, 99), percentile(call, 50), percentile(call, 99)];
    figures[type] = { own_p50: round(o50, 3), own_p99: round(o99, 3), call_p50: round(c50, 3), call_p99: round(c99, 3), overhead_p50: round(c50 - o50, 3), overhead_p99: round(c99 - o99, 3) };
    console.log(`${type.padEnd(22)} ${f(o50)} ${f(o99)} ${f(c50)}  ${f(c99)}  ${f(c50 - o50)}      ${f(c99 - o99)}`);
  }
  console.log('not timed:');
  for (const [type, why] of Object.entries(NOT_TIMED)) console.log(`  ${type.padEnd(20)} ${why}`);
  console.log(JSON.stringify({ bench: 'node-overhead-durable', rounds: ROUNDS, overhead_ms: figures, not_timed: NOT_TIMED }));
  for (const h of holders.__benchHold) h.release();
  await new Promise((r) => setTimeout(r, 200));
} finally {
  for (const h of holders.__benchHold ?? []) h.release();
  await k?.close();
  if (k) rmSync(k.kernel.dataDir, { recursive: true, force: true });
  dropDatabase(dbName);
}
