import type { Context } from 'moleculer';
import type { Readable } from 'node:stream';
import { WORKFLOWS_CHECKPOINT_ACTION, type DurableAnswer } from '../../kernel/nodes/durable.ts';
import { sendLiveEvents } from '../../kernel/nodes/live-outbox.ts';
import { MODELS_GENERATE_STREAM_ACTION, readGenerateStream, type GenerateResult, type GenerateStreamParams } from '../../kernel/models-generate-contract.ts';
import { TOOL_SERVICE_PREFIX, type ToolDeclaration } from '../../kernel/tools-contract.ts';
import { listTools } from '../../kernel/tools/registry.ts';
import { decideTool } from '../../kernel/tools/policy.ts';
import { readGovernance, type Governance } from '../../kernel/governance.ts';
import { PLANS_PROPOSE_ACTION, PLANS_UPDATE_STEP_ACTION, type PlanProposeParams, type PlanUpdateStepParams, type PlanView } from '../../kernel/agents-contract.ts';
import type { AgentPort, ToolOutcome } from './loop.ts';
import type { PlanPort } from './plan-tools.ts';
import { loopSink, type LoopPhase } from './profile.ts';

export interface PortScope {
  run_id: string;
  step_id: string;
  entity_id: string;
  workspace_id: string | null;
  owner_id: string | null;
  engine_node: string;
  agent_id: string | null;
  task_id: string | null;
  /** the goal a planning run produces a plan for (its propose_plan links the plan to it) */
  goal_id: string | null;
  conversation_id: string | null;
  bound: string[];
  contact_role: 'external' | 'member' | 'admin' | null;
  api_key_id?: string;
  model?: string;
}

class ModelFailure extends Error {
  constructor(message: string, readonly type: string) {
    super(message);
  }
}

/**
 * The text deltas of one model turn on their way to the run's live events: each sent as it
 * comes while no send is in flight (the live outbox gathers the sends of every stream for the
 * rest of the event-loop turn into one call, kernel/nodes/live-outbox.ts), the ones that come
 * meanwhile sent together as one `agent.text.delta` once the send answers: one send in flight
 * at a time, while the model stream is read on (no round trip per token). `check()` says
 * whether an answer asked the run to stop, and rethrows a send that failed; `flush()` sends what
 * is left and then says the same.
 */
export class DeltaBatch {
  private pending = '';
  private sending: Promise<void> | undefined;
  private stopped = false;
  private failure: unknown;
  private closed = false;

  constructor(private readonly send: (text: string) => Promise<DurableAnswer>) {}

  add(text: string): void {
    // nothing goes after a stop; and a pump must always reach its first send (whose await lets
    // `sending` be set before its `finally` clears it)
    if (!text || this.closed || this.stopped) return;
    this.pending += text;
    this.sending ??= this.pump();
  }

  private async pump(): Promise<void> {
    try {
      while (this.pending && !this.stopped && !this.closed) {
        const text = this.pending;
        this.pending = '';
        if ((await this.send(text)).stop) this.stopped = true;
      }
    } catch (err) {
      this.failure ??= err;
    } finally {
      this.sending = undefined;
    }
  }

  check(): boolean {
    if (this.failure !== undefined) throw this.failure;
    return this.stopped;
  }

  async flush(): Promise<boolean> {
    while (this.sending) await this.sending;
    if (this.pending && !this.stopped && !this.closed) {
      this.sending = this.pump();
      await this.sending;
    }
    return this.check();
  }

  /** nothing more is sent (the turn ended or failed) */
  close(): void {
    this.closed = true;
  }
}

/** Reports a phase's duration to the bench's sink, when one is installed (profile.ts). */
export function measured<T>(phase: LoopPhase, runId: string, work: () => Promise<T>): Promise<T> {
  const sink = loopSink();
  if (!sink) return work();
  const t0 = performance.now();
  return work().finally(() => sink(phase, performance.now() - t0, runId));
}

/**
 * The agent loop's effects, through the broker: models, tools, the run's checkpoints, the task's
 * record. `interrupted`: aborted by an interrupt of the run (`workflows.run.interrupt`: a chat
 * client gone, a cancel); a model turn in flight stops at once, even when the provider stalls.
 */
export function brokerPort(ctx: Context, scope: PortScope, interrupted?: AbortSignal): AgentPort {
  const meta = { user: { id: scope.owner_id, entity_id: scope.entity_id, role: 'member' } };
  const onEngine = { nodeID: scope.engine_node, meta };
  let governance: Promise<Governance> | undefined;
  const governanceOf = (): Promise<Governance> => {
    if (!scope.workspace_id) return Promise.resolve(readGovernance(null));
    governance ??= ctx.call<Record<string, unknown>, { workspace_id: string }>('workspaces.getGovernance', { workspace_id: scope.workspace_id }, { meta }).then((g) => readGovernance(g));
    return governance;
  };
  const live = (events: { type: string; data: Record<string, unknown> }[]) => sendLiveEvents(ctx.broker, scope.engine_node, { run_id: scope.run_id, events });
  let declared: ToolDeclaration[] | undefined;

  const modelTurn: AgentPort['modelTurn'] = async ({ round, messages, system, tools }) => {
    const params: GenerateStreamParams = { messages, system, tools, api_key_id: scope.api_key_id, model: scope.model, purpose: 'agent', workspace_id: scope.workspace_id ?? undefined, agent_id: scope.agent_id ?? undefined, run_id: scope.run_id, local_objects: true };
    const stream = await ctx.call<Readable, GenerateStreamParams>(MODELS_GENERATE_STREAM_ACTION, params, { meta, timeout: 0 });
    const deltas = new DeltaBatch((text) => live([{ type: 'agent.text.delta', data: { round, text } }]));
    let text = '';
    // the partial answer so far; destroying the stream aborts the provider call (plugins/models stream.ts)
    const stop = (): { turn: GenerateResult; stopped: true } => {
      stream.destroy();
      return { turn: { text, tool_calls: [], finish_reason: 'other', usage: { input_tokens: 0, output_tokens: 0 }, model: scope.model ?? '', provider: 'openai', api_key_id: scope.api_key_id ?? '', attempts: 1 }, stopped: true };
    };
    if (interrupted?.aborted) return stop();
    // an interrupt cuts the stream at once, not at the next delta (a stalled provider sends none)
    const cut = () => void stream.destroy();
    interrupted?.addEventListener('abort', cut, { once: true });
    try {
      for await (const line of readGenerateStream(stream)) {
        if (deltas.check() || interrupted?.aborted) return stop();
        if (line.type === 'text.delta') {
          text += line.text;
          deltas.add(line.text);
        } else if (line.type === 'retry') {
          if (await deltas.flush()) return stop();
          await live([{ type: 'agent.model.retry', data: { round, attempt: line.attempt, wait_ms: line.wait_ms, reason: line.reason } }]);
        } else if (line.type === 'done') {
          // every delta goes out before the turn's message is committed
          if (await deltas.flush()) return stop();
          const { type: _type, ...turn } = line;
          return { turn, stopped: false };
        } else if (line.type === 'error') {
          await deltas.flush().catch(() => undefined);
          throw new ModelFailure(line.message, line.code);
        }
      }
    } catch (err) {
      if (interrupted?.aborted) return stop();
      throw err;
    } finally {
      interrupted?.removeEventListener('abort', cut);
      deltas.close();
    }
    if (interrupted?.aborted) return stop();
    throw new ModelFailure('The model stream ended without an answer.', 'MODELS_ERR_STREAM_CUT');
  };

  return {
    plans: (scope.task_id || scope.goal_id) && scope.agent_id && scope.workspace_id && plansLoaded(ctx) ? planPort(ctx, scope, meta) : undefined,

    modelTurn: (req) => measured('model', scope.run_id, () => modelTurn(req)),

    checkpoint(key, status, output, opts = {}) {
      return measured('checkpoint', scope.run_id, () => ctx.call<DurableAnswer, unknown>(WORKFLOWS_CHECKPOINT_ACTION, { run_id: scope.run_id, step_id: scope.step_id, key, status, output, uncertain: opts.uncertain, events: opts.events, ahead: opts.ahead }, onEngine));
    },

    async policy(name) {
      declared ??= listTools(ctx.broker);
      const tool = declared.find((t) => t.name === name);
      if (!tool) return { verdict: { decision: 'deny', reason: 'no such tool is loaded' } };
      const verdict = decideTool({ tool, bound: scope.bound, governance: await governanceOf(), contact_role: scope.contact_role });
      return { spec: { name: tool.name, description: tool.description, parameters: tool.parameters, side_effect: tool.side_effect }, verdict };
    },

    async runTool(name, args, call, approval): Promise<ToolOutcome> {
      const context = {
        entity_id: scope.entity_id, user_id: scope.owner_id, workspace_id: scope.workspace_id, agent_id: scope.agent_id, run_id: scope.run_id,
        step_id: scope.step_id, invocation_id: call.id, task_id: scope.task_id, conversation_id: scope.conversation_id,
        approval: approval?.decision === 'approve' ? { decision: 'approve' as const, decided_by: approval.decided_by, decided_at: approval.decided_at, comment: approval.comment } : null,
      };
      try {
        const output = await measured('tool', scope.run_id, () => ctx.call(`${TOOL_SERVICE_PREFIX}${name}.execute`, { arguments: args, context }, { meta }));
        return { ok: true, output: output ?? null };
      } catch (err) {
        const e = err as { type?: string; code?: number; message?: string };
        // a tool's own refusal (422, 404...) is the model's to read and correct; anything else is a crash
        if (typeof e.code === 'number' && e.code >= 400 && e.code < 500) return { ok: false, error: { message: String(e.message ?? 'the tool refused the call').slice(0, 4000), code: e.type ?? 'TOOL_ERROR' } };
        ctx.broker.logger.warn({ err, tool: name, run_id: scope.run_id }, 'an agent tool failed');
        return { ok: false, error: { message: `The tool '${name}' failed unexpectedly.`, code: 'TOOL_CRASHED' } };
      }
    },

    async record(entries) {
      if (!scope.task_id) return;
      await ctx
        .call('task-runs.record', { entity_id: scope.entity_id, task_id: scope.task_id, agent_id: scope.agent_id, run_id: scope.run_id, entries }, { meta })
        .catch((err: Error) => ctx.broker.logger.warn({ err, task_id: scope.task_id }, 'could not append to the task execution record'));
    },
  };
}

/** Whether a node serves plans (plugins/goals); without it a run offers no plan tools. */
function plansLoaded(ctx: Context): boolean {
  const actions = (ctx.broker.registry as unknown as { actions: { isAvailable(name: string): boolean } }).actions;
  return actions.isAvailable(PLANS_PROPOSE_ACTION);
}

/** Plans (plugins/goals) proposed by the run's agent: for its task, or for the goal a planning run is about. */
function planPort(ctx: Context, scope: PortScope, meta: Record<string, unknown>): PlanPort {
  const get = (planId: string) => ctx.call<PlanView, { plan_id: string }>('plans.get', { plan_id: planId }, { meta });
  return {
    kind: scope.task_id ? 'task' : 'goal',
    propose: (summary, steps) =>
      ctx.call<PlanView, PlanProposeParams>(PLANS_PROPOSE_ACTION, { workspace_id: scope.workspace_id!, task_id: scope.task_id, goal_id: scope.goal_id, agent_id: scope.agent_id!, run_id: scope.run_id, summary, steps }, { meta }),
    get,
    async decide(planId, decision) {
      const verb = decision.decision === 'approve' ? 'approve' : 'reject';
      const asDecider = { meta: { user: { id: decision.decided_by, entity_id: scope.entity_id, role: 'member' } } };
      try {
        return await ctx.call<PlanView, { plan_id: string; comment?: string }>(`plans.${verb}`, { plan_id: planId, ...(decision.comment ? { comment: decision.comment } : {}) }, asDecider);
      } catch (err) {
        // decided meanwhile through its own route: the plan as it is now is the answer
        if ((err as { code?: number }).code === 409) return get(planId);
        throw err;
      }
    },
    updateStep: (planId, index, status) => ctx.call<PlanView, PlanUpdateStepParams>(PLANS_UPDATE_STEP_ACTION, { plan_id: planId, index, status }, { meta }),
  };
}
