import type { Context } from 'moleculer';
import { AGENTS_RESOLVE_ACTION, AGENT_DEFAULT_MAX_ROUNDS, type AgentView } from '../../kernel/agents-contract.ts';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { NODE_EXECUTE_PARAMS } from '../../kernel/nodes/contract.ts';
import { WORKFLOWS_INTERRUPT_EVENT, type Checkpoint, type DurableDecision } from '../../kernel/nodes/durable.ts';
import { RunAborts } from '../../kernel/nodes/interruptible.ts';
import type { GenerateMessage, ToolSpec } from '../../kernel/models-generate-contract.ts';
import { AGENT_CONFIG_SCHEMA, type AgentConfig } from './config.ts';
import { runAgentLoop, type AgentPort, type LoopResult } from './loop.ts';
import { brokerPort, measured } from './port.ts';

const nodeType: NodeTypeDeclaration = {
  type: 'agent',
  version: 1,
  category: 'ai',
  title: 'Agent',
  description: 'Runs an agent: model turns and tool calls under the workspace policy, up to a round cap. Every model answer and tool result is committed before the next, so a crash repeats none; a tool needing approval, or a question to a person, parks the run.',
  config_schema: AGENT_CONFIG_SCHEMA as unknown as Record<string, unknown>,
  outputs: ['main'],
  uncertain_effect: false,
  checkpoints: true,
  // its tools may change things; every call is committed, so a resumed step repeats none
  side_effect: 'non_idempotent',
};

interface ExecuteContext {
  run_id: string;
  step_id: string;
  entity_id: string;
  workspace_id: string | null;
  checkpoints?: Checkpoint[];
  engine_node?: string;
  owner_id?: string | null;
  approval?: DurableDecision;
}

class AgentStepError extends Error {
  constructor(message: string, readonly type: string) {
    super(message);
  }
}

/** The first user message: the prompt, with its files. */
function promptMessage(config: AgentConfig): GenerateMessage {
  if (!config.files?.length) return { role: 'user', content: config.prompt };
  return { role: 'user', content: [{ type: 'text', text: config.prompt }, ...config.files.map((f) => ({ type: 'file' as const, ...f }))] };
}

/** Tools the model is told of: the bound ones that are loaded and not denied (policy is checked again on every call). */
async function declaredTools(port: AgentPort, bound: string[]): Promise<ToolSpec[]> {
  const specs: ToolSpec[] = [];
  for (const name of bound) {
    const { spec, verdict } = await port.policy(name);
    if (spec && verdict.decision !== 'deny') specs.push({ name: spec.name, description: spec.description, parameters: spec.parameters });
  }
  return specs;
}

function answerOf(result: LoopResult, agentId: string | null): unknown {
  switch (result.kind) {
    case 'done':
      return { output: { text: result.text, rounds: result.rounds, tool_calls: result.tool_calls, usage: result.usage, stop_reason: result.stop_reason, agent_id: agentId } };
    case 'approval':
      return { runtime_approval_required: { reason: result.reason, action: result.call.name, details: { tool_call: result.call, round: result.round } } };
    case 'plan':
      return {
        runtime_approval_required: {
          reason: `The agent proposed a plan that needs a person's approval: ${result.plan.summary}`.slice(0, 4000),
          action: 'propose_plan',
          details: { plan_id: result.plan.id, steps: result.plan.steps.map((s) => s.title), tool_call: result.call, round: result.round },
        },
      };
    case 'review':
      return {
        runtime_approval_required: {
          reason: `Delivery review: the agent stopped with unfinished plan steps (${result.unfinished.map((s) => s.title).join('; ')}).`.slice(0, 4000),
          action: 'delivery_review',
          details: { plan_id: result.plan.id, state_version: result.plan.version, unfinished: result.unfinished, round: result.round },
        },
      };
    case 'question':
      return { question: { text: result.text, details: { call_id: result.call.id, round: result.round } } };
    case 'round_cap':
      throw new AgentStepError(`The agent reached its round cap of ${result.rounds} model turns without finishing.`, 'AGENT_ROUND_CAP');
  }
}

/** the model turns in flight here, by run: an interrupt of the run stops its turn at once */
const aborts = new RunAborts();

async function execute(ctx: Context<{ config: AgentConfig; context: ExecuteContext }>): Promise<unknown> {
  const { context } = ctx.params;
  if (!context?.engine_node) throw new AgentStepError('The agent node runs only inside a run driven by the workflow engine.', 'AGENT_NO_RUN');
  const tracked = aborts.track(context.run_id);
  try {
    return await executeTracked(ctx, tracked.signal);
  } finally {
    tracked.release();
  }
}

async function executeTracked(ctx: Context<{ config: AgentConfig; context: ExecuteContext }>, interrupted: AbortSignal): Promise<unknown> {
  const { config, context } = ctx.params as { config: AgentConfig; context: ExecuteContext & { engine_node: string } };
  const meta = { user: { id: context.owner_id ?? null, entity_id: context.entity_id, role: 'member' } };
  let agent: AgentView | undefined;
  if (config.agent_id) {
    agent = await ctx.call<AgentView, { agent_id: string }>(AGENTS_RESOLVE_ACTION, { agent_id: config.agent_id }, { meta });
    if (agent.status !== 'active') throw new AgentStepError(`The agent '${agent.name}' is disabled.`, 'AGENT_DISABLED');
  }
  const bound = config.tools ?? agent?.tools ?? [];
  const port = brokerPort(ctx, {
    run_id: context.run_id, step_id: context.step_id, entity_id: context.entity_id, workspace_id: context.workspace_id, owner_id: context.owner_id ?? null,
    engine_node: context.engine_node, agent_id: agent?.id ?? null, task_id: config.task_id ?? null, goal_id: config.goal_id ?? null, conversation_id: config.conversation_id ?? null,
    bound, contact_role: config.contact_role ?? null,
    api_key_id: config.api_key_id ?? agent?.api_key_id ?? undefined, model: config.model ?? agent?.model ?? undefined,
  }, interrupted);
  // not awaited: a listener must never hold the step (the task follows the committed run instead)
  const outcome = (fields: Record<string, unknown>): void =>
    void Promise.resolve(ctx.emit('agent.run.outcome', {
      entity_id: context.entity_id, workspace_id: context.workspace_id, run_id: context.run_id, step_id: context.step_id, owner_id: context.owner_id ?? null,
      agent_id: agent?.id ?? null, task_id: config.task_id ?? null, conversation_id: config.conversation_id ?? null, ...fields,
    })).catch(() => undefined);
  const system = [agent?.instructions, config.system].filter((s): s is string => Boolean(s && s.trim())).join('\n\n') || undefined;
  let result: LoopResult;
  try {
    const input = {
      messages: [...(config.history ?? []), promptMessage(config)],
      system,
      tools: await declaredTools(port, bound),
      maxRounds: config.max_rounds ?? agent?.max_rounds ?? AGENT_DEFAULT_MAX_ROUNDS,
      checkpoints: context.checkpoints ?? [],
      decision: context.approval,
    };
    result = await measured('step', context.run_id, () => runAgentLoop(port, input));
  } catch (err) {
    const e = err as { message?: string; type?: string };
    outcome({ kind: 'failed', error: { message: e.message ?? String(err), code: e.type ?? 'AGENT_ERROR' } });
    throw err;
  }
  outcome({ kind: result.kind, text: 'text' in result ? result.text : null, call: 'call' in result ? result.call : null, reason: 'reason' in result ? result.reason : null });
  return answerOf(result, agent?.id ?? null);
}

/**
 * Workflow node type `agent` (a durable node, kernel/nodes/durable.ts): the one agent loop, used
 * by workflow steps and by the agent runtime's task and chat runs alike.
 */
export default {
  name: 'node.agent',
  metadata: { nodeType },
  actions: {
    execute: {
      visibility: 'public',
      timeout: 0,
      params: NODE_EXECUTE_PARAMS,
      handler: execute,
    },
  },
  events: {
    [WORKFLOWS_INTERRUPT_EVENT](ctx: Context<{ run_id?: unknown; reason?: unknown }>) {
      if (typeof ctx.params?.run_id === 'string' && ctx.params.run_id) aborts.interrupt(ctx.params.run_id, String(ctx.params.reason ?? 'the run was interrupted'));
    },
  },
};
