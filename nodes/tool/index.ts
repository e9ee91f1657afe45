import type { Context } from 'moleculer';
import { NODE_EXECUTE_PARAMS, type NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { WORKFLOWS_CHECKPOINT_ACTION, type DurableAnswer } from '../../kernel/nodes/durable.ts';
import { callerMeta, NodeStepError, requireContext, TIMEOUT_SCHEMA, type NodeRunContext } from '../../kernel/nodes/model-step.ts';
import { readGovernance } from '../../kernel/governance.ts';
import { argumentProblems } from '../../kernel/tools/arguments.ts';
import { decideTool } from '../../kernel/tools/policy.ts';
import { findTool } from '../../kernel/tools/registry.ts';
import { TOOL_SERVICE_PREFIX, type ToolCallContext, type ToolDeclaration } from '../../kernel/tools-contract.ts';

/**
 * Workflow node type `tool`: runs one agent tool (a `tools/` package) under the same policy as
 * the agent runtime: bound = [that tool], the run's workspace governance. Policy `deny` fails
 * the step; `ask` parks the run for the owner's approval and the approved repeat checks policy
 * again. A durable node (kernel/nodes/durable.ts) so that only a non-idempotent tool's call is
 * marked uncertain while in flight (reconciled, never repeated, if its worker dies), and a
 * finished call is never made twice.
 */
const nodeType: NodeTypeDeclaration = {
  type: 'tool',
  version: 1,
  category: 'action',
  title: 'Tool',
  description: "Runs one agent tool with the given arguments under the workspace's tool policy (deny fails, ask waits for the run owner's approval); outputs the tool's result.",
  config_schema: {
    type: 'object',
    properties: {
      tool: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$', description: 'The tool name (a loaded tool package).', examples: ['tasks'] },
      arguments: { type: 'object', default: {}, description: "The tool's arguments (templates allowed at any depth); checked against its parameters before policy.", examples: [{ op: 'now', zone: 'Europe/Paris' }] },
      timeout: { ...TIMEOUT_SCHEMA, description: 'Seconds the step may take; past it the step fails with STEP_TIMEOUT (null: no outer deadline).' },
    },
    required: ['tool'],
    additionalProperties: false,
  },
  outputs: ['main'],
  // decided per call: only a non-idempotent tool's call in flight is uncertain (a checkpoint marks it)
  uncertain_effect: false,
  checkpoints: true,
  // the tool's own kind decides per call; declared as the worst a tool can be
  side_effect: 'non_idempotent',
};

interface ToolConfig {
  tool: string;
  arguments?: Record<string, unknown>;
  timeout?: number | null;
}

const CALL_KEY = 'call';

function checkpoint(ctx: Context, context: NodeRunContext, status: 'running' | 'completed' | 'failed', fields: { output?: unknown; error?: unknown; uncertain?: boolean }): Promise<DurableAnswer> {
  return ctx.call<DurableAnswer, unknown>(WORKFLOWS_CHECKPOINT_ACTION, { run_id: context.run_id, step_id: context.step_id, key: CALL_KEY, status, ...fields }, { nodeID: context.engine_node, meta: callerMeta(context) });
}

async function governanceOf(ctx: Context, context: NodeRunContext) {
  if (!context.workspace_id) return readGovernance(null);
  try {
    return readGovernance(await ctx.call<Record<string, unknown>, { workspace_id: string }>('workspaces.getGovernance', { workspace_id: context.workspace_id }, { meta: callerMeta(context) }));
  } catch (err) {
    const e = err as { message?: string; type?: string };
    throw new NodeStepError(`The workspace's tool policy could not be read: ${e.message ?? String(err)}`, 'POLICY_UNAVAILABLE');
  }
}

/** The tool's own failure as the step's: a refusal (4xx) with its message; a crash without internal detail. */
function toolFailure(ctx: Context, name: string, err: unknown): NodeStepError {
  const e = err as { type?: string; code?: number; message?: string };
  if (typeof e.code === 'number' && e.code >= 400 && e.code < 500) return new NodeStepError(String(e.message ?? 'the tool refused the call').slice(0, 2000), e.type ?? 'TOOL_ERROR');
  ctx.broker.logger.warn({ err, tool: name }, 'a workflow tool step failed');
  return new NodeStepError(`The tool '${name}' failed unexpectedly.`, 'TOOL_CRASHED');
}

async function execute(ctx: Context<{ config: ToolConfig; context?: unknown }>): Promise<unknown> {
  const { config } = ctx.params;
  const context = requireContext(ctx.params.context);
  if (!context.run_id || !context.engine_node) throw new NodeStepError('The tool node runs only inside a workflow run driven by the engine (not standalone).', 'NO_RUN_CONTEXT');
  const done = context.checkpoints?.find((c) => c.key === CALL_KEY && (c.status === 'completed' || c.status === 'failed'));
  if (done?.status === 'completed') return { output: done.output };
  if (done) {
    const error = (done.error ?? {}) as { message?: string; code?: string };
    throw new NodeStepError(error.message ?? 'the tool call failed', error.code ?? 'TOOL_ERROR');
  }

  const found = findTool(ctx.broker, config.tool);
  if (!found) throw new NodeStepError(`No tool named '${config.tool}' is loaded.`, 'TOOL_UNAVAILABLE');
  const tool: ToolDeclaration = found.declaration;
  const args = config.arguments ?? {};
  if (!args || typeof args !== 'object' || Array.isArray(args)) throw new NodeStepError('config.arguments must be an object once its templates are resolved.', 'TOOLS_ERR_INVALID_ARGUMENTS');
  const problems = argumentProblems(tool, args);
  if (problems.length) throw new NodeStepError(`The arguments of '${tool.name}' are not valid: ${problems.map((p) => `config.arguments.${p.message}`).join('; ')}.`, 'TOOLS_ERR_INVALID_ARGUMENTS');

  const verdict = decideTool({ tool, bound: [tool.name], governance: await governanceOf(ctx, context), contact_role: null });
  if (verdict.decision === 'deny') throw new NodeStepError(`The workspace policy denies the tool '${tool.name}' (${verdict.reason}).`, 'TOOL_DENIED');
  const approval = context.approval;
  if (approval?.decision === 'reject') {
    throw new NodeStepError(`approval rejected by ${approval.decided_by}${approval.comment ? `: ${approval.comment}` : ''}`, 'APPROVAL_REJECTED');
  }
  const approved = approval?.decision === 'approve';
  if (verdict.decision === 'ask' && !approved) {
    return {
      runtime_approval_required: {
        reason: `Running the tool '${tool.name}' needs approval (${verdict.reason}).`,
        action: tool.name,
        details: { tool: tool.name, arguments: args, risk: tool.risk, side_effect: tool.side_effect },
      },
    };
  }

  const uncertain = tool.side_effect === 'non_idempotent';
  if (uncertain) {
    const answer = await checkpoint(ctx, context, 'running', { uncertain: true });
    if (answer.stop) throw new NodeStepError(`The tool was not run: ${answer.reason ?? 'the run was stopped'}.`, 'STEP_INTERRUPTED');
  }
  const toolContext: ToolCallContext = {
    entity_id: context.entity_id,
    user_id: context.owner_id ?? null,
    workspace_id: context.workspace_id,
    agent_id: null,
    run_id: context.run_id,
    step_id: context.step_id,
    // stable across the approved repeat of this invocation: the tool's idempotency key
    invocation_id: `${context.run_id}:${context.step_id}`,
    approval: approved ? { decision: 'approve', decided_by: approval!.decided_by, decided_at: approval!.decided_at, comment: approval!.comment } : null,
  };
  let output: unknown;
  try {
    output = (await ctx.call(`${TOOL_SERVICE_PREFIX}${tool.name}.execute`, { arguments: args, context: toolContext }, { meta: callerMeta(context) })) ?? null;
  } catch (err) {
    const failure = toolFailure(ctx, tool.name, err);
    if (uncertain) await checkpoint(ctx, context, 'failed', { error: { message: failure.message, code: failure.type } });
    throw failure;
  }
  if (uncertain) await checkpoint(ctx, context, 'completed', { output });
  return { output };
}

export default {
  name: 'node.tool',
  metadata: { nodeType },
  actions: {
    execute: {
      visibility: 'public',
      timeout: 0,
      params: NODE_EXECUTE_PARAMS,
      handler: execute,
    },
  },
};
