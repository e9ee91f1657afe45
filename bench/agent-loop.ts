/**
 * The agent loop's overhead per round on PostgreSQL: agent runs of R rounds (R-1 turns calling
 * the `datetime` tool, then an answer) against the scripted provider over real HTTP, each model
 * turn and tool result committed as a checkpoint of the run before the next starts.
 *
 *   node --import tsx bench/agent-loop.ts [--runs 40] [--rounds 5] [--concurrency 1,4]
 *
 * The agent node reports its phases to a sink this bench installs (nodes/agent/profile.ts): the
 * whole loop, each model turn (the models package's call, provider included), each checkpoint
 * commit and each tool call. Loop overhead per round = (loop - model turns - tool calls) / rounds:
 * the checkpoint commits, policy, the live events and building the next request. Target: p50 <
 * 1.5 ms (p99 reported). Also printed: the gap between two provider requests of one run (what a
 * round costs besides the provider) and the phases' own p50s.
 */
import { parseArgs } from 'node:util';
import { startTestKernel } from '../test/helpers/kernel.ts';
import { agentPackagesRoot } from '../test/helpers/agent-kernel.ts';
import { startScriptedProvider, type StaticReply } from '../test/helpers/scripted-provider.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { percentile, round } from './lib/stats.ts';
import { installLoopSink, type LoopPhase } from '../nodes/agent/profile.ts';
import { rmSync } from 'node:fs';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '40' }, rounds: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '1,4' } } });
const RUNS = Number(args.runs);
const ROUNDS = Number(args.rounds);

const requestsByRun = new Map<string, number[]>();
const provider = await startScriptedProvider({
  fallback: (req) => {
    const body = req.body as { messages: { role: string; content: unknown }[] };
    const prompt = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
    const runKey = prompt.slice(prompt.indexOf('#') + 1);
    const list = requestsByRun.get(runKey) ?? [];
    list.push(performance.now());
    requestsByRun.set(runKey, list);
    const toolTurns = body.messages.filter((m) => m.role === 'assistant').length;
    const reply: StaticReply = toolTurns < ROUNDS - 1 ? { text: '', tool_calls: [{ name: 'datetime', arguments: { op: 'now' } }] } : { text: 'done' };
    return reply;
  },
});

const db = `bench_agent_loop_${process.pid}`;
createDatabase(db);
const root = agentPackagesRoot();
const kernel = await startTestKernel({
  roots: [root],
  env: { DATABASE_URL: databaseUrl(db), RATE_LIMIT_PER_MINUTE: '0', MODEL_OPENAI_BASE_URL: `${provider.url}/v1`, LOG_LEVEL: 'fatal', WORKER_WORK_CONCURRENCY: '8' },
});
const owner = { id: 'u-owner', entity_id: 'e-1', role: 'owner' };
const call = <T>(action: string, params: unknown) => kernel.broker.call(action, params, { meta: { user: owner } }) as Promise<T>;

await call('models.create', { name: 'Key', provider: 'openai', api_key: 'sk-bench-0123456789abcdef', default_model: 'bench', is_default: true });
const workspace = await call<{ id: string }>('workspaces.create', { name: 'Bench' });
const agent = await call<{ id: string; version: number }>('agents.create', { name: 'Bench', instructions: 'Bench.', workspace_id: workspace.id, tools: ['datetime'], max_rounds: ROUNDS + 1 });

async function oneRun(key: string): Promise<void> {
  const started = await call<{ run_id: string }>('workflows.startInternalRun', {
    kind: 'agent', subject_id: agent.id, subject_version: agent.version, name: 'bench', workspace_id: workspace.id,
    steps: [{ id: 'start', type: 'trigger', next: ['agent'] }, { id: 'agent', type: 'agent', config: { agent_id: agent.id, prompt: `run #${key}` } }],
    trigger: { agent_id: agent.id },
  });
  const done = await call<{ status: string }>('workflows.awaitRun', { run_id: started.run_id, seconds: 60 });
  if (done.status !== 'completed') throw new Error(`run ${started.run_id} ended ${done.status}`);
}

const phases = new Map<string, Record<LoopPhase, number[]>>();
installLoopSink((phase, ms, runId) => {
  const run = phases.get(runId) ?? { step: [], model: [], checkpoint: [], tool: [] };
  run[phase].push(ms);
  phases.set(runId, run);
});
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const p = (values: number[]) => ({ p50: round(percentile(values, 50), 3), p99: round(percentile(values, 99), 3) });

for (const concurrency of String(args.concurrency).split(',').map(Number)) {
  requestsByRun.clear();
  phases.clear();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < RUNS) await oneRun(`c${concurrency}-${next++}`);
  }));
  const seconds = (performance.now() - t0) / 1000;
  const gaps: number[] = [];
  for (const list of requestsByRun.values()) for (let i = 1; i < list.length; i++) gaps.push(list[i] - list[i - 1]);
  const runs = [...phases.values()];
  const overhead = runs.map((r) => (sum(r.step) - sum(r.model) - sum(r.tool)) / r.model.length);
  console.log(JSON.stringify({
    concurrency, runs: RUNS, rounds: ROUNDS, seconds: round(seconds), rounds_per_second: round((RUNS * ROUNDS) / seconds),
    loop_overhead_per_round_ms: p(overhead),
    model_turn_ms: p(runs.flatMap((r) => r.model)), checkpoint_ms: p(runs.flatMap((r) => r.checkpoint)), tool_ms: p(runs.flatMap((r) => r.tool)),
    provider_gap_ms: p(gaps),
  }));
}

await kernel.close();
await provider.close();
dropDatabase(db);
rmSync(root, { recursive: true, force: true });
