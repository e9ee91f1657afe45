import type { Context } from 'moleculer';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { checkResolvedConfig, COMMON_STEP_FAILURES, STEP_TIMEOUT_SCHEMA } from '../../kernel/nodes/data-node.ts';
import { interruptibleNodeService } from '../../kernel/nodes/interruptible.ts';
import { callerMeta, NodeStepError, requireContext, type NodeRunContext } from '../../kernel/nodes/model-step.ts';
import type { Schema } from '../../kernel/json-schema/validate.ts';

/**
 * Workflow node type `workflow_action_grant`: a durable approval scope. The step names an
 * action; a valid grant of it (same run owner, same binding, or workflow for runs without
 * one; not revoked, not expired, uses left) lets the run through at once and records the use.
 * Without one, `ask` parks the run for the owner's approval (runtime_approval_required); the
 * approved repeat creates the grant (plugins/workflows/actions/grants.ts checks the stored
 * approval is the owner's, so a generic resume or a retry never creates one) with this
 * step's use; `check` fails the step with GRANT_MISSING. The owner lists and revokes grants
 * with GET /api/v1/workflows/grants and POST /api/v1/workflows/grants/{id}/revoke.
 */
export const nodeType: NodeTypeDeclaration = {
  type: 'workflow_action_grant',
  version: 1,
  category: 'state',
  title: 'Action Grant',
  description: "Checks, or asks the run owner for, a durable grant of an action (scoped by binding, expiry and use count); a step inside a valid grant does not wait.",
  config_schema: {
    type: 'object',
    properties: {
      action: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_.:-]+$', description: 'The action the grant covers (grants of other actions do not count).', examples: ['send_invoice'] },
      mode: { type: 'string', enum: ['ask', 'check'], default: 'ask', description: "ask: without a valid grant, wait for the run owner's approval, which creates one; check: without one, fail the step (GRANT_MISSING).", examples: ['check'] },
      expires_in_seconds: { type: ['integer', 'null'], minimum: 1, maximum: 31536000, default: 86400, description: 'A grant created by an approval here expires this long after it (null: never).', examples: [3600] },
      max_uses: { type: ['integer', 'null'], minimum: 1, maximum: 1000000, default: null, description: 'How many steps a grant created here lets through, the approving one included (null: no limit).', examples: [10] },
      message: { type: 'string', maxLength: 2000, default: '', description: 'What the owner is asked (default: a sentence naming the action).', examples: ['Allow this workflow to send invoices for a day?'] },
      timeout: STEP_TIMEOUT_SCHEMA,
    },
    required: ['action'],
    additionalProperties: false,
  },
  outputs: ['main'],
  uncertain_effect: false,
  // the runtime approval repeats the invocation with context.approval and the run owner's id
  checkpoints: true,
  side_effect: 'idempotent',
  failures: {
    ...COMMON_STEP_FAILURES,
    NO_RUN_CONTEXT: 'the step ran outside a workflow run driven by the engine',
    GRANT_MISSING: 'check mode: no valid grant of the action (none given, revoked, expired or used up)',
    APPROVAL_REJECTED: "the run owner rejected the grant",
    IN_LOOP_BODY: 'the step is in the body of a loop (one use is recorded per run step, so iterations would share it): check the grant before the loop',
    GRANT_REFUSED: 'the grant could not be used or created (the run is not running, has no owner, or the approval is not the owner\'s)',
  },
};

interface Config {
  action: string;
  mode?: 'ask' | 'check';
  expires_in_seconds?: number | null;
  max_uses?: number | null;
  message?: string;
}

interface GrantView {
  id: string;
  uses: number;
  max_uses: number | null;
  expires_at: string | null;
}

/** A refusal of the workflows package (4xx) as this step's failure. */
function refused(err: unknown): NodeStepError {
  const e = err as { code?: number; message?: string; name?: string };
  if (e.name === 'RequestTimeoutError') return new NodeStepError('The step did not finish within its timeout.', 'STEP_TIMEOUT');
  if (typeof e.code === 'number' && e.code >= 400 && e.code < 500) return new NodeStepError(String(e.message ?? 'refused'), 'GRANT_REFUSED');
  return err instanceof Error ? new NodeStepError(e.message ?? 'the grant could not be checked', 'GRANT_REFUSED') : new NodeStepError(String(err), 'GRANT_REFUSED');
}

function granted(grant: GrantView, created: boolean, action: string): { output: Record<string, unknown> } {
  return { output: { granted: true, created, action, grant_id: grant.id, uses: grant.uses, max_uses: grant.max_uses, expires_at: grant.expires_at } };
}

async function execute(ctx: Context<{ config: Config; context?: unknown }>, signal: AbortSignal): Promise<unknown> {
  const config = ctx.params.config;
  checkResolvedConfig(nodeType.config_schema as Schema, config);
  const context: NodeRunContext = requireContext(ctx.params.context);
  if (!context.run_id || !context.step_id) throw new NodeStepError('workflow_action_grant runs only inside a workflow run.', 'NO_RUN_CONTEXT');
  const opts = { meta: callerMeta(context) };
  const at = { run_id: context.run_id, step_id: context.step_id, action: config.action };
  const approval = context.approval;
  if (approval?.decision === 'reject') throw new NodeStepError(`The grant of '${config.action}' was rejected by ${approval.decided_by}${approval.comment ? `: ${approval.comment}` : ''}.`, 'APPROVAL_REJECTED');
  if (approval?.decision === 'approve') {
    const created = await ctx.call<{ grant: GrantView }, unknown>('workflows.createGrant', { ...at, expires_in_seconds: config.expires_in_seconds === undefined ? 86400 : config.expires_in_seconds, max_uses: config.max_uses ?? null }, opts).catch((err) => Promise.reject(refused(err)));
    return granted(created.grant, true, config.action);
  }
  const used = await ctx.call<{ grant: GrantView | null; in_loop_body?: boolean }, unknown>('workflows.useGrant', at, opts).catch((err) => Promise.reject(refused(err)));
  if (signal.aborted) throw signal.reason;
  if (used.in_loop_body) throw new NodeStepError(`Step '${context.step_id}' is in a loop body, where its uses would be shared by every iteration: check the grant before the loop.`, 'IN_LOOP_BODY');
  if (used.grant) return granted(used.grant, false, config.action);
  if (config.mode === 'check') throw new NodeStepError(`No valid grant of '${config.action}' (none given, revoked, expired or used up).`, 'GRANT_MISSING');
  return {
    runtime_approval_required: {
      reason: config.message || `Allow this workflow to perform '${config.action}'${config.max_uses ? ` up to ${config.max_uses} times` : ''}${config.expires_in_seconds === null ? '' : ` for ${config.expires_in_seconds ?? 86400} s`}?`,
      action: config.action,
      details: { action: config.action, expires_in_seconds: config.expires_in_seconds === undefined ? 86400 : config.expires_in_seconds, max_uses: config.max_uses ?? null },
    },
  };
}

export default interruptibleNodeService<{ config: Config; context?: { run_id?: string } }>(nodeType, (p) => p.context?.run_id ?? '', execute as never);
