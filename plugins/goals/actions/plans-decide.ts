import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { PLAN_APPROVED_EVENT, PLAN_REJECTED_EVENT, type PlanEventPayload } from '../../../kernel/agents-contract.ts';
import { planNotPending } from '../errors.ts';
import { COMMENT_RULE } from '../fields.ts';
import { emitAfterCommit, loadPlan, type GoalsAction, type GoalsService } from '../service.ts';
import { PLAN_SCHEMA, planView } from '../views.ts';
import type { PlanAttributes } from '../model.ts';
import { PLAN_ID_PARAM } from './plans-read.ts';

/** The payload of every plan event. */
export function planEvent(row: PlanAttributes, extra: Partial<PlanEventPayload> = {}): PlanEventPayload {
  return {
    entity_id: row.entity_id,
    workspace_id: row.workspace_id,
    plan_id: row.id,
    goal_id: row.goal_id,
    task_id: row.task_id,
    agent_id: row.agent_id,
    run_id: row.run_id,
    status: row.status,
    decided_by: row.decided_by,
    automatic: false,
    ...extra,
  };
}

/**
 * Decides a pending plan in one guarded statement: of two racing decisions exactly one finds
 * the plan pending; the other gets 409 with the status the first one left.
 */
async function decide(svc: GoalsService, ctx: Context<{ plan_id: string; comment?: string | null }>, to: 'approved' | 'rejected'): Promise<PlanAttributes> {
  const who = identityOf(ctx);
  const current = await loadPlan(svc, ctx, ctx.params.plan_id);
  const [row] = await svc.models.Plan.sequelize!.query<PlanAttributes>(
    `UPDATE plans SET status = $3, decided_by = $4, decided_at = now(), decision_comment = $5, version = version + 1, updated_at = now()
     WHERE id = $1 AND entity_id = $2 AND status = 'pending' RETURNING *`,
    { bind: [current.id, who.entity_id, to, who.id, ctx.params.comment || null], type: QueryTypes.SELECT },
  );
  if (!row) {
    const now = await loadPlan(svc, ctx, current.id);
    throw planNotPending(now.id, now.status);
  }
  emitAfterCommit(ctx, to === 'approved' ? PLAN_APPROVED_EVENT : PLAN_REJECTED_EVENT, planEvent(row, { comment: row.decision_comment }));
  return row;
}

const decision = (verb: 'approve' | 'reject', to: 'approved' | 'rejected'): GoalsAction => ({
  rest: `POST /:plan_id/${verb}`,
  summary: `${verb === 'approve' ? 'Approve' : 'Reject'} a pending plan`,
  description: `Any user of the entity may decide. Only a pending plan: otherwise 409 \`GOALS_ERR_PLAN_NOT_PENDING\` with \`current_status\`. Emits \`plan.${to}\`, on which the agent runtime resumes the run that proposed it.`,
  tags: ['plans'],
  params: { ...PLAN_ID_PARAM, comment: COMMENT_RULE },
  response: PLAN_SCHEMA,
  async handler(this: GoalsService, ctx: Context<{ plan_id: string; comment?: string | null }>) {
    return planView(await decide(this, ctx, to));
  },
});

export const approve = decision('approve', 'approved');
export const reject = decision('reject', 'rejected');
