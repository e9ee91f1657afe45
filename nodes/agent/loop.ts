import type { Checkpoint, CheckpointEntry, DurableAnswer, DurableDecision } from '../../kernel/nodes/durable.ts';
import { TurnCommits } from './turn-commits.ts';
import type { GenerateMessage, GenerateResult, ToolCall, ToolSpec } from '../../kernel/models-generate-contract.ts';
import type { ToolPolicyVerdict } from '../../kernel/tools-contract.ts';
import type { PlanView } from '../../kernel/agents-contract.ts';
import { ASK_HUMAN, ASK_HUMAN_SPEC, modelKey, planKey, reviewKey, toolKey } from './keys.ts';
import { correctionsSinceResume, reviewOf, reviewPlan, type ReviewRecord } from './delivery-review.ts';
import { afterProposal, planToolSpecs, PROPOSE_PLAN, proposePlanStep, UPDATE_PLAN_STEP, updatePlanStep, type PlanPort } from './plan-tools.ts';

/** What one tool call ended with, as the model is told (and as its checkpoint stores it). */
export interface ToolOutcome {
  ok: boolean;
  output?: unknown;
  error?: { message: string; code: string };
  /** who decided it when a person did (approval, rejection, answer) */
  decided_by?: string;
}

/** Everything the loop does to the world, so the loop itself is plain logic (tests give a fake). */
export interface AgentPort {
  /** one model turn; text deltas go out live as they arrive; `stopped` when the run asked to stop mid-stream */
  modelTurn(req: { round: number; messages: GenerateMessage[]; system: string | undefined; tools: ToolSpec[] }): Promise<{ turn: GenerateResult; stopped: boolean }>;
  /** commits a checkpoint, with `ahead` (held-back earlier ones) in the same commit before it */
  checkpoint(key: string, status: 'running' | 'completed' | 'failed', output: unknown, opts?: { uncertain?: boolean; events?: { type: string; data: Record<string, unknown> }[]; ahead?: CheckpointEntry[] }): Promise<DurableAnswer>;
  /** the tool's declaration (undefined: not loaded anywhere) and what policy decides for it now */
  policy(name: string): Promise<{ spec?: ToolSpec & { side_effect: string }; verdict: ToolPolicyVerdict }>;
  runTool(name: string, args: Record<string, unknown>, call: ToolCall, approval: DurableDecision | undefined): Promise<ToolOutcome>;
  /** the task's execution record (best effort) */
  record(entries: { kind: 'plan_step' | 'tool_call' | 'note'; data: Record<string, unknown> }[]): Promise<void>;
  /** the plans package, when this run may propose plans (a task run of a workspace agent) */
  plans?: PlanPort;
}

export interface LoopInput {
  messages: GenerateMessage[];
  system: string | undefined;
  tools: ToolSpec[];
  maxRounds: number;
  checkpoints: Checkpoint[];
  /** the decision this invocation repeats with (an approval, a rejection, an answer) */
  decision: DurableDecision | undefined;
}

export type LoopResult =
  | { kind: 'done'; text: string; rounds: number; usage: { input_tokens: number; output_tokens: number }; tool_calls: number; stop_reason: 'stop' | 'interrupted' }
  | { kind: 'approval'; call: ToolCall; round: number; reason: string }
  | { kind: 'question'; call: ToolCall; round: number; text: string }
  | { kind: 'plan'; call: ToolCall; round: number; plan: PlanView }
  | { kind: 'review'; round: number; plan: PlanView; unfinished: ReviewRecord['unfinished'] }
  | { kind: 'round_cap'; rounds: number; text: string };

/**
 * The agent loop: model turn, its tool calls (each under policy, each committed), next turn, up
 * to the round cap. Every finished model turn and tool result is a checkpoint; on a repeat (a
 * crash, an approval, an answer) the loop replays them instead of acting again, so a completed
 * tool call is never repeated and the model is not asked again for a turn it already gave.
 */
export async function runAgentLoop(port: AgentPort, input: LoopInput): Promise<LoopResult> {
  const done = new Map(input.checkpoints.filter((c) => c.status === 'completed' || c.status === 'reconciled').map((c) => [c.key, c]));
  const messages = [...input.messages];
  const usage = { input_tokens: 0, output_tokens: 0 };
  let decision = input.decision;
  let toolCalls = 0;
  const tools = [...input.tools, ASK_HUMAN_SPEC, ...planToolSpecs(port.plans)];
  // the run's current plan: the last proposal that was approved
  const plan: { id?: string } = {};
  const reviews: ReviewRecord[] = [];
  const commits = new TurnCommits(port);
  for (let round = 1; ; round++) {
    let turn = done.get(modelKey(round))?.output as GenerateResult | undefined;
    if (!turn) {
      if (round > input.maxRounds) return { kind: 'round_cap', rounds: round - 1, text: lastText(messages) };
      const asked = await port.modelTurn({ round, messages, system: input.system, tools });
      turn = asked.turn;
      const events = [{ type: 'agent.message', data: { round, text: turn.text, tool_calls: turn.tool_calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })), usage: turn.usage, interrupted: asked.stopped || undefined } }];
      // a turn calling tools commits with its first tool's answer (turn-commits.ts)
      if (!asked.stopped && turn.tool_calls.length > 0) commits.hold({ key: modelKey(round), status: 'completed', output: turn, events });
      else {
        const answer = await commits.checkpoint(modelKey(round), 'completed', turn, { events });
        if (asked.stopped || answer.stop) return finished(turn.text, round, usage, turn, toolCalls, 'interrupted');
      }
    }
    usage.input_tokens += turn.usage.input_tokens;
    usage.output_tokens += turn.usage.output_tokens;
    messages.push({ role: 'assistant', content: turn.text, ...(turn.tool_calls.length ? { tool_calls: turn.tool_calls } : {}) });
    if (turn.tool_calls.length === 0) {
      const review = await deliveryReview(port, round, done, plan.id, reviews, decision);
      if (review.kind === 'passed') return finished(turn.text, round, usage, undefined, toolCalls, 'stop');
      if (review.kind === 'pause') return { kind: 'review', round, plan: review.plan, unfinished: review.unfinished };
      if (review.usedDecision) decision = undefined;
      reviews.push(review.record);
      messages.push({ role: 'user', content: review.record.message });
      continue;
    }
    for (const [index, call] of turn.tool_calls.entries()) {
      const key = toolKey(round, index);
      let outcome = done.get(key)?.output as ToolOutcome | undefined;
      if (!outcome) {
        const step = await callTool(port, commits, call, decision, round, key, { proposed: done.get(planKey(round, index)), proposedKey: planKey(round, index), plan });
        if ('park' in step) {
          // a person decides on this call of this turn: the turn must be there when the run resumes
          await commits.flush();
          return step.park;
        }
        if (step.usedDecision) decision = undefined;
        outcome = step.outcome;
        const answer = await commits.checkpoint(key, 'completed', outcome, {
          events: [{ type: 'agent.tool.result', data: { round, call_id: call.id, name: call.name, ok: outcome.ok, error: outcome.error, decided_by: outcome.decided_by } }],
        });
        await port.record([{ kind: 'tool_call', data: { round, name: call.name, arguments: call.arguments, ok: outcome.ok, error: outcome.error ?? null } }]);
        if (answer.stop) return finished(turn.text, round, usage, undefined, toolCalls + 1, 'interrupted');
      }
      if (call.name === PROPOSE_PLAN && outcome.ok) plan.id = (outcome.output as { plan_id?: string } | null)?.plan_id;
      toolCalls++;
      messages.push({ role: 'tool', tool_call_id: call.id, tool_name: call.name, content: outcome.ok ? (outcome.output ?? null) : { error: outcome.error }, is_error: !outcome.ok });
    }
  }
}

/** The review of a final answer: replayed when committed, else made now against the plan as it is. */
async function deliveryReview(port: AgentPort, round: number, done: Map<string, Checkpoint>, planId: string | undefined, reviews: ReviewRecord[], decision: DurableDecision | undefined): Promise<ReturnType<typeof reviewPlan>> {
  const replayed = reviewOf(done.get(reviewKey(round)));
  if (replayed) return { kind: 'correct', record: replayed, usedDecision: false };
  // a goal's planning run does not carry its plan out: nothing to review
  if (!port.plans || !planId || port.plans.kind === 'goal') return { kind: 'passed' };
  const verdict = reviewPlan(await port.plans.get(planId), correctionsSinceResume(reviews), decision);
  if (verdict.kind === 'correct') {
    const { unfinished, resumed_by } = verdict.record;
    await port.checkpoint(reviewKey(round), 'completed', verdict.record, { events: [{ type: 'agent.review', data: { round, unfinished, resumed_by } }] });
  }
  return verdict;
}

function lastText(messages: GenerateMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'assistant' && m.content) return m.content;
  }
  return '';
}

function finished(text: string, round: number, usage: { input_tokens: number; output_tokens: number }, last: GenerateResult | undefined, toolCalls: number, stop_reason: 'stop' | 'interrupted'): LoopResult {
  if (last) {
    usage.input_tokens += last.usage.input_tokens;
    usage.output_tokens += last.usage.output_tokens;
  }
  return { kind: 'done', text, rounds: round, usage, tool_calls: toolCalls, stop_reason };
}

type CallStep = { outcome: ToolOutcome; usedDecision: boolean } | { park: LoopResult };

/** A built-in plan tool: stored and committed before the answer, parked while a person decides. */
async function callPlanTool(port: AgentPort, plans: PlanPort, call: ToolCall, args: Record<string, unknown>, decision: DurableDecision | undefined, round: number, state: CallState): Promise<CallStep> {
  if (call.name === UPDATE_PLAN_STEP) {
    const outcome = await updatePlanStep(plans, state.plan.id, args);
    if (outcome.ok) await port.record([{ kind: 'plan_step', data: { plan_id: state.plan.id, index: args.index, status: args.status } }]);
    return { outcome, usedDecision: false };
  }
  let step = await proposePlanStep(plans, args, state.proposed, decision);
  if ('stored' in step) {
    const stored = step.stored;
    await port.checkpoint(state.proposedKey, 'completed', { plan_id: stored.id }, { events: [{ type: 'agent.plan.proposed', data: { round, call_id: call.id, plan_id: stored.id, status: stored.status } }] });
    step = afterProposal(stored, plans.kind);
  }
  if ('park' in step) return { park: { kind: 'plan', call, round, plan: step.park } };
  return { outcome: step.outcome, usedDecision: step.usedDecision };
}

interface CallState {
  /** a `propose_plan` call's record of the plan it stored, when an earlier invocation did */
  proposed: Checkpoint | undefined;
  proposedKey: string;
  plan: { id?: string };
}

/**
 * One tool call not made yet: the question tool, the plan tools, policy (deny, ask, allow), then
 * the tool itself. Only a tool without side effects, or an idempotent one, runs while the turn
 * asking for it is still held back (turn-commits.ts); anything else commits the turn first.
 */
async function callTool(port: AgentPort, commits: TurnCommits, call: ToolCall, decision: DurableDecision | undefined, round: number, key: string, state: CallState): Promise<CallStep> {
  if (call.arguments_error) return { outcome: { ok: false, error: { message: `The arguments were not valid JSON: ${call.arguments_error}`, code: 'INVALID_ARGUMENTS' } }, usedDecision: false };
  const args = (call.arguments && typeof call.arguments === 'object' && !Array.isArray(call.arguments) ? call.arguments : {}) as Record<string, unknown>;
  if (port.plans && planToolSpecs(port.plans).some((t) => t.name === call.name)) {
    await commits.flush();
    return callPlanTool(port, port.plans, call, args, decision, round, state);
  }
  if (call.name === ASK_HUMAN) {
    if (decision?.decision === 'answer') return { outcome: { ok: true, output: { answer: decision.answer ?? '' }, decided_by: decision.decided_by }, usedDecision: true };
    const text = typeof args.question === 'string' && args.question.trim() ? args.question.slice(0, 4000) : 'The agent needs more information to go on.';
    return { park: { kind: 'question', call, round, text } };
  }
  const { spec, verdict } = await port.policy(call.name);
  if (!spec) return { outcome: { ok: false, error: { message: `No tool named '${call.name}' is available.`, code: 'UNKNOWN_TOOL' } }, usedDecision: false };
  if (verdict.decision === 'deny') return { outcome: { ok: false, error: { message: `The tool '${call.name}' is not allowed here (${verdict.reason}).`, code: 'TOOL_DENIED' } }, usedDecision: false };
  let approval: DurableDecision | undefined;
  if (verdict.decision === 'ask') {
    if (decision?.decision === 'reject') {
      const why = decision.comment ? `: ${decision.comment}` : '';
      return { outcome: { ok: false, error: { message: `A person rejected this call${why}. Do not try it again unchanged.`, code: 'APPROVAL_REJECTED' }, decided_by: decision.decided_by }, usedDecision: true };
    }
    if (decision?.decision !== 'approve') return { park: { kind: 'approval', call, round, reason: `The tool '${call.name}' needs a person's approval (${verdict.reason}).` } };
    approval = decision;
  }
  if (spec.side_effect === 'non_idempotent') {
    // in flight: a worker that dies now leaves this marker, and the run is reconciled, never repeated blindly
    const answer = await commits.checkpoint(key, 'running', null, { uncertain: true, events: [{ type: 'agent.tool.started', data: { round, call_id: call.id, name: call.name } }] });
    if (answer.stop) return { outcome: { ok: false, error: { message: 'The run was stopped before the tool ran.', code: 'STOPPED' } }, usedDecision: false };
  }
  const outcome = await port.runTool(call.name, args, call, approval);
  return { outcome: approval ? { ...outcome, decided_by: approval.decided_by } : outcome, usedDecision: approval !== undefined };
}
