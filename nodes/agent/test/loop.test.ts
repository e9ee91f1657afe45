import test, { type ExecutionContext } from 'ava';
import type { Checkpoint, DurableDecision } from '../../../kernel/nodes/durable.ts';
import type { GenerateResult, ToolSpec } from '../../../kernel/models-generate-contract.ts';
import type { ToolPolicyVerdict } from '../../../kernel/tools-contract.ts';
import { runAttempt } from '../../../plugins/models/sdk/attempt.ts';
import { toModelMessages } from '../../../plugins/models/sdk/prompt.ts';
import { startScriptedProvider, type ScriptedToolCall, type TextReply } from '../../../test/helpers/scripted-provider.ts';
import { runAgentLoop, type AgentPort, type ToolOutcome } from '../loop.ts';

/** A model turn as the scripted provider answers it: text, then tool calls. */
function turn(text: string, calls: ScriptedToolCall[] = []): TextReply {
  return { text, tool_calls: calls };
}

/** A tool call; `args` given as a string is sent as is (so it may be not JSON at all). */
const call = (name: string, args: unknown = {}, id = `c-${name}`): ScriptedToolCall => ({ id, name, arguments: args });

/**
 * A port whose model turns go through the SDK (plugins/models' attempt, the models package's
 * own) over HTTP to a scripted provider answering `turns` in order; tools, policy and
 * checkpoints are recorded, every effect in order.
 */
async function fakePort(t: ExecutionContext, turns: TextReply[], opts: { verdicts?: Record<string, ToolPolicyVerdict['decision']>; sideEffects?: Record<string, string>; stopAfter?: string } = {}) {
  const provider = await startScriptedProvider();
  t.teardown(() => provider.close());
  provider.replies.push(...turns);
  const log: string[] = [];
  const committed: Checkpoint[] = [];
  const ran: { name: string; args: unknown; approval: DurableDecision | undefined }[] = [];
  let stopped = false;
  const port: AgentPort = {
    async modelTurn({ round, messages, system, tools }) {
      log.push(`model ${round} (${messages.length} messages)`);
      const target = { provider: 'openai' as const, apiKey: 'sk-scripted-0123456789', model: 'gpt-test', baseUrl: `${provider.url}/v1`, fetch: globalThis.fetch };
      const modelMessages = await toModelMessages(messages, async () => {
        throw new Error('no files in these tests');
      });
      const outcome = await runAttempt({ target, messages: modelMessages, system, tools }, AbortSignal.timeout(30_000), () => undefined);
      const answered: GenerateResult = { ...outcome, model: outcome.model ?? target.model, provider: 'openai', api_key_id: 'k', attempts: 1 };
      return { turn: answered, stopped: false };
    },
    async checkpoint(key, status, output, o = {}) {
      // checkpoints committed ahead of this one, in the same commit
      for (const a of o.ahead ?? []) {
        log.push(`checkpoint ${a.key} ${a.status} (ahead of ${key})`);
        committed.push({ key: a.key, status: a.status, output: a.output, error: null, uncertain: a.uncertain === true, started_at: null, finished_at: null });
      }
      log.push(`checkpoint ${key} ${status}${o.uncertain ? ' uncertain' : ''}`);
      committed.push({ key, status, output, error: null, uncertain: o.uncertain === true, started_at: null, finished_at: null });
      // like the executor's: once asked, every later checkpoint answers stop
      stopped ||= opts.stopAfter === `${key} ${status}`;
      return { stop: stopped };
    },
    async policy(name) {
      const decision = opts.verdicts?.[name] ?? 'allow';
      if (name === 'missing') return { verdict: { decision: 'deny', reason: 'no such tool is loaded' } };
      return { spec: { name, description: name, parameters: { type: 'object' }, side_effect: opts.sideEffects?.[name] ?? 'none' }, verdict: { decision, reason: `rule ${decision}` } };
    },
    async runTool(name, args, _call, approval): Promise<ToolOutcome> {
      log.push(`tool ${name}`);
      ran.push({ name, args, approval });
      return { ok: true, output: { echoed: args } };
    },
    async record() {},
  };
  return { port, log, committed, ran, provider };
}

/** the tools the model is offered (the loop adds ask_human) */
const TOOLS: ToolSpec[] = ['datetime', 'tasks', 'send', 'http_request', 'shell'].map((name) => ({ name, description: `the ${name} tool`, parameters: { type: 'object' } }));

const base = { messages: [{ role: 'user' as const, content: 'hi' }], system: undefined, tools: TOOLS, maxRounds: 5, checkpoints: [] as Checkpoint[], decision: undefined };
const approve: DurableDecision = { decision: 'approve', decided_by: 'u-1', decided_at: '2026-01-01T00:00:00.000Z', comment: null };

test('a plain answer is one model turn, committed before the step ends', async (t) => {
  const { port, log } = await fakePort(t, [turn('hello')]);
  const result = await runAgentLoop(port, base);
  t.like(result, { kind: 'done', text: 'hello', rounds: 1, tool_calls: 0, stop_reason: 'stop' });
  t.deepEqual(log, ['model 1 (1 messages)', 'checkpoint r0001.model completed']);
});

test('a tool call is run, committed, and its result goes back to the model; a turn calling a tool without side effects commits with its answer', async (t) => {
  const { port, log, ran, provider } = await fakePort(t, [turn('', [call('datetime', { op: 'now' })]), turn('it is noon')]);
  const result = await runAgentLoop(port, base);
  const told = (provider.requests[1].body.messages as { role: string; content: unknown; tool_call_id?: string }[]).find((m) => m.role === 'tool');
  t.like(told, { tool_call_id: 'c-datetime' });
  t.regex(JSON.stringify(told!.content), /echoed/, "the tool's result went back to the model over the wire");
  t.like(result, { kind: 'done', text: 'it is noon', rounds: 2, tool_calls: 1 });
  t.deepEqual(ran.map((r) => r.name), ['datetime']);
  t.deepEqual(log, ['model 1 (1 messages)', 'tool datetime', 'checkpoint r0001.model completed (ahead of r0001.tool.0)', 'checkpoint r0001.tool.0 completed', 'model 2 (3 messages)', 'checkpoint r0002.model completed']);
});

test('a crash while a turn is held back loses only that turn: the repeat asks the model again and runs the harmless tool again', async (t) => {
  const first = await fakePort(t, [turn('', [call('datetime')])]);
  first.port.runTool = async () => {
    throw new Error('the worker died');
  };
  await t.throwsAsync(runAgentLoop(first.port, base), { message: 'the worker died' });
  t.deepEqual(first.committed, [], 'nothing was committed: the turn was held for its tool answer');
  const second = await fakePort(t, [turn('', [call('datetime')]), turn('done')]);
  t.like(await runAgentLoop(second.port, { ...base, checkpoints: first.committed }), { kind: 'done', text: 'done', rounds: 2 });
  t.deepEqual(second.ran.map((r) => r.name), ['datetime']);
});

test('a plan tool or a park commits the held turn first, on its own', async (t) => {
  const { port, log } = await fakePort(t, [turn('', [call('send')])], { verdicts: { send: 'ask' } });
  const result = await runAgentLoop(port, base);
  t.is(result.kind, 'approval');
  t.deepEqual(log, ['model 1 (1 messages)', 'checkpoint r0001.model completed']);
});

test('a repeat replays committed checkpoints: no model turn asked again, no tool run again', async (t) => {
  const first = await fakePort(t, [turn('', [call('tasks', { op: 'create' })])], { stopAfter: 'r0001.tool.0 completed', sideEffects: { tasks: 'non_idempotent' } });
  await runAgentLoop(first.port, base);
  t.deepEqual(first.ran.length, 1);
  const done = first.committed.filter((c) => c.status === 'completed');
  const second = await fakePort(t, [turn('created it')], { sideEffects: { tasks: 'non_idempotent' } });
  const result = await runAgentLoop(second.port, { ...base, checkpoints: done });
  t.like(result, { kind: 'done', text: 'created it', rounds: 2 });
  t.deepEqual(second.ran, []);
  t.deepEqual(second.log, ['model 2 (3 messages)', 'checkpoint r0002.model completed']);
  t.is(second.provider.requests.length, 1, 'the provider was asked for the second turn only');
});

test('a non-idempotent tool commits an uncertain in-flight marker before it runs', async (t) => {
  const { port, log } = await fakePort(t, [turn('', [call('http_request')]), turn('done')], { sideEffects: { http_request: 'non_idempotent' } });
  await runAgentLoop(port, base);
  t.deepEqual(log.slice(1, 5), ['checkpoint r0001.model completed (ahead of r0001.tool.0)', 'checkpoint r0001.tool.0 running uncertain', 'tool http_request', 'checkpoint r0001.tool.0 completed']);
});

test('policy ask parks the run; the approval repeats only that invocation, with the approval', async (t) => {
  const first = await fakePort(t, [turn('', [call('datetime'), call('tasks', { op: 'create' })])], { verdicts: { tasks: 'ask' } });
  const parked = await runAgentLoop(first.port, base);
  t.like(parked, { kind: 'approval', round: 1 });
  t.deepEqual(first.ran.map((r) => r.name), ['datetime']);
  const again = await fakePort(t, [turn('created')], { verdicts: { tasks: 'ask' } });
  const result = await runAgentLoop(again.port, { ...base, checkpoints: first.committed, decision: approve });
  t.like(result, { kind: 'done', text: 'created' });
  t.deepEqual(again.ran.map((r) => [r.name, r.approval?.decided_by]), [['tasks', 'u-1']]);
});

test('a rejection reaches the model as the tool result; the tool never runs', async (t) => {
  const first = await fakePort(t, [turn('', [call('tasks')])], { verdicts: { tasks: 'ask' } });
  await runAgentLoop(first.port, base);
  const again = await fakePort(t, [turn('understood')], { verdicts: { tasks: 'ask' } });
  const result = await runAgentLoop(again.port, { ...base, checkpoints: first.committed, decision: { ...approve, decision: 'reject', comment: 'not today' } });
  t.like(result, { kind: 'done', text: 'understood' });
  t.deepEqual(again.ran, []);
  const outcome = again.committed.find((c) => c.key === 'r0001.tool.0')!.output as ToolOutcome;
  t.like(outcome, { ok: false, error: { code: 'APPROVAL_REJECTED' }, decided_by: 'u-1' });
  t.regex(outcome.error!.message, /not today/);
});

test('a denied or unknown tool is refused by policy whatever the model says, and the model is told', async (t) => {
  const { port, ran, committed } = await fakePort(t, [turn('', [call('shell', { cmd: 'rm -rf /' }), call('missing')]), turn('ok')], { verdicts: { shell: 'deny' } });
  const result = await runAgentLoop(port, base);
  t.like(result, { kind: 'done', text: 'ok' });
  t.deepEqual(ran, []);
  t.like(committed.find((c) => c.key === 'r0001.tool.0')!.output, { ok: false, error: { code: 'TOOL_DENIED' } });
  t.like(committed.find((c) => c.key === 'r0001.tool.1')!.output, { ok: false, error: { code: 'UNKNOWN_TOOL' } });
});

test('arguments that were not JSON go back to the model as a tool error', async (t) => {
  const { port, ran, committed } = await fakePort(t, [turn('', [{ id: 'x', name: 'datetime', arguments: '{"op": no' }]), turn('sorry')]);
  await runAgentLoop(port, base);
  t.deepEqual(ran, []);
  t.like(committed.find((c) => c.key === 'r0001.tool.0')!.output, { ok: false, error: { code: 'INVALID_ARGUMENTS' } });
});

test('a model that never stops calling tools stops at the round cap, with the reason', async (t) => {
  const turns = Array.from({ length: 3 }, (_, i) => turn(`try ${i}`, [call('datetime', {}, `c${i}`)]));
  const { port, ran } = await fakePort(t, turns);
  const result = await runAgentLoop(port, { ...base, maxRounds: 3 });
  t.like(result, { kind: 'round_cap', rounds: 3, text: 'try 2' });
  t.is(ran.length, 3);
});

test('a question parks the run; the answer is the tool result', async (t) => {
  const first = await fakePort(t, [turn('', [call('ask_human', { question: 'Which printer?' })])]);
  const parked = await runAgentLoop(first.port, base);
  t.like(parked, { kind: 'question', text: 'Which printer?' });
  const again = await fakePort(t, [turn('fixing the second floor one')]);
  const result = await runAgentLoop(again.port, { ...base, checkpoints: first.committed, decision: { ...approve, decision: 'answer', answer: 'second floor' } });
  t.like(result, { kind: 'done', text: 'fixing the second floor one' });
  t.like(again.committed.find((c) => c.key === 'r0001.tool.0')!.output, { ok: true, output: { answer: 'second floor' } });
});

test('a stop asked at a checkpoint ends the step with what it has', async (t) => {
  const plain = await fakePort(t, [turn('partial', [call('datetime')])], { stopAfter: 'r0001.tool.0 completed' });
  t.like(await runAgentLoop(plain.port, base), { kind: 'done', text: 'partial', stop_reason: 'interrupted', tool_calls: 1 });
  // a tool with side effects: the stop is heard at its in-flight marker, before it runs
  const effect = await fakePort(t, [turn('partial', [call('http_request')])], { sideEffects: { http_request: 'non_idempotent' }, stopAfter: 'r0001.tool.0 running' });
  t.like(await runAgentLoop(effect.port, base), { kind: 'done', text: 'partial', stop_reason: 'interrupted' });
  t.deepEqual(effect.ran, []);
});
