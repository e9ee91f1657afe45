/**
 * The agent loop's overhead per round on PostgreSQL: agent runs of R rounds (R-1 turns calling
 * the `datetime` tool, then an answer) against the scripted provider over real HTTP, each model
 * turn and tool result committed as a checkpoint of the run before the next starts.
 *
 *   node --import tsx bench/agent-loop.ts [--runs 40] [--rounds 5] [--concurrency 1,4]
 *
 * Per round it reports the gap between two consecutive provider requests of one run: the local
 * provider's answer (immediate), the SDK's HTTP and stream handling, the model checkpoint's
 * commit, policy, the tool call (datetime: microseconds) and its checkpoint's commit, and building
 * the next request. It includes the provider's and the SDK's time, so it is an upper bound of the
 * loop's own overhead. Target: p50 < 1.5 ms (p99 reported).
 */
import { parseArgs } from 'node:util';
import { startTestKernel } from '../test/helpers/kernel.ts';
import { agentPackagesRoot } from '../test/helpers/agent-kernel.ts';
import { startScriptedProvider, type StaticReply } from '../test/helpers/scripted-provider.ts';
import { createDatabase, databaseUrl, dropDatabase } from './lib/postgres.ts';
import { percentile, round } from './lib/stats.ts';
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

for (const concurrency of String(args.concurrency).split(',').map(Number)) {
  requestsByRun.clear();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < RUNS) await oneRun(`c${concurrency}-${next++}`);
  }));
  const seconds = (performance.now() - t0) / 1000;
  const gaps: number[] = [];
  for (const list of requestsByRun.values()) for (let i = 1; i < list.length; i++) gaps.push(list[i] - list[i - 1]);
  console.log(JSON.stringify({ concurrency, runs: RUNS, rounds: ROUNDS, seconds: round(seconds), rounds_per_second: round((RUNS * ROUNDS) / seconds), gap_ms: { p50: round(percentile(gaps, 50), 3), p90: round(percentile(gaps, 90), 3), p99: round(percentile(gaps, 99), 3), n: gaps.length } }));
}

await kernel.close();
await provider.close();
dropDatabase(db);
rmSync(root, { recursive: true, force: true });
