import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import {
  PLAN_APPROVED_EVENT,
  PLAN_PROPOSED_EVENT,
  PLAN_SUPERSEDED_EVENT,
  type PlanProposeParams,
  type PlanStep,
  type PlanView,
} from '../../../kernel/agents-contract.ts';
import { invalid, type FieldProblem } from '../errors.ts';
import { STEPS_RULE, SUMMARY_RULE, UUID_RULE } from '../fields.ts';
import { agentProblem, workspaceProblem } from '../refs.ts';
import { planNeedsApproval } from '../approval.ts';
import { emitAfterCommit, type GoalsAction, type GoalsService } from '../service.ts';
import { planView } from '../views.ts';
import type { PlanAttributes } from '../model.ts';
import { planEvent } from './plans-decide.ts';

/** The goal must be the caller's and in the plan's workspace. */
async function goalProblem(svc: GoalsService, entityId: string, goalId: string, workspaceId: string): Promise<FieldProblem | null> {
  const goal = await svc.models.Goal.findOne({ where: { entity_id: entityId, id: goalId }, attributes: ['workspace_id'] });
  if (!goal) return { field: 'goal_id', message: `No goal with id '${goalId}' in your entity.`, type: 'reference' };
  if (goal.workspace_id !== workspaceId) return { field: 'goal_id', message: `Goal '${goalId}' belongs to another workspace.`, type: 'reference' };
  return null;
}

const lower = (id: string | null | undefined): string | null => (id ? id.toLowerCase() : null);

/**
 * `plans.propose` (internal, for the agent runtime; the entity is `ctx.meta.user`'s): stores a
 * plan, pending or approved at once as the workspace's governance and operating model say, and
 * supersedes the older pending plans of the same goal or task. See kernel/agents-contract.ts.
 */
export const propose: GoalsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    workspace_id: UUID_RULE,
    goal_id: { ...UUID_RULE, optional: true, nullable: true },
    task_id: { ...UUID_RULE, optional: true, nullable: true },
    agent_id: UUID_RULE,
    run_id: { type: 'string', min: 1, max: 64, optional: true, nullable: true },
    summary: SUMMARY_RULE,
    steps: STEPS_RULE,
  },
  async handler(ctx: Context<PlanProposeParams>): Promise<PlanView> {
    const who = identityOf(ctx);
    const workspaceId = ctx.params.workspace_id.toLowerCase();
    const goalId = lower(ctx.params.goal_id);
    const taskId = lower(ctx.params.task_id);
    const agentId = ctx.params.agent_id.toLowerCase();
    const problems = (
      await Promise.all([workspaceProblem(ctx, workspaceId), agentProblem(ctx, agentId, workspaceId), goalId ? goalProblem(this, who.entity_id, goalId, workspaceId) : null])
    ).filter((p): p is FieldProblem => p !== null);
    if (problems.length) throw invalid(problems);
    const requiresApproval = await planNeedsApproval(ctx, workspaceId);
    const steps: PlanStep[] = ctx.params.steps.map((s) => ({ title: s.title, detail: s.detail ?? null, status: s.status ?? 'pending' }));
    const db = this.models.Plan.sequelize!;
    const { row, superseded } = await db.transaction(async (transaction) => {
      const keys = [goalId && `plans:goal:${goalId}`, taskId && `plans:task:${taskId}`].filter((k): k is string => !!k).sort();
      for (const key of keys) await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', { bind: [key], transaction });
      let superseded: PlanAttributes[] = [];
      if (keys.length) {
        superseded = await db.query<PlanAttributes>(
          `UPDATE plans SET status = 'superseded', version = version + 1, updated_at = now()
           WHERE entity_id = $1 AND status = 'pending' AND (goal_id = $2 OR task_id = $3) RETURNING *`,
          { bind: [who.entity_id, goalId, taskId], type: QueryTypes.SELECT, transaction },
        );
      }
      const row = await tenantRepo(this.models.Plan, 'plan').create(
        ctx,
        {
          id: newId(),
          workspace_id: workspaceId,
          goal_id: goalId,
          task_id: taskId,
          agent_id: agentId,
          run_id: ctx.params.run_id ?? null,
          summary: ctx.params.summary,
          steps,
          status: requiresApproval ? 'pending' : 'approved',
          requires_approval: requiresApproval,
          decided_at: requiresApproval ? null : new Date(),
          created_by: who.id,
        },
        { transaction },
      );
      return { row, superseded };
    });
    for (const old of superseded) emitAfterCommit(ctx, PLAN_SUPERSEDED_EVENT, planEvent(old));
    emitAfterCommit(ctx, PLAN_PROPOSED_EVENT, planEvent(row));
    if (!requiresApproval) emitAfterCommit(ctx, PLAN_APPROVED_EVENT, planEvent(row, { automatic: true, comment: null }));
    return planView(row);
  },
};

