import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { WORKSPACE_DASHBOARD_PARAMS, type WorkspaceDashboardParams, type WorkspaceDeletedPayload } from '../../../kernel/workspace-contracts.ts';
import type { AgentEventPayload } from '../../../kernel/agents-contract.ts';
import type { GoalsAction, GoalsService } from '../service.ts';

/** The workspace dashboard's summary: goals per status and the plans waiting for a decision. */
export const workspaceDashboard: GoalsAction = {
  visibility: 'public',
  params: WORKSPACE_DASHBOARD_PARAMS,
  async handler(ctx: Context<WorkspaceDashboardParams>) {
    const bind = [ctx.params.entity_id, ctx.params.workspace_id];
    const db = this.models.Goal.sequelize!;
    const [goals, [plans]] = await Promise.all([
      db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM goals WHERE entity_id = $1 AND workspace_id = $2 GROUP BY status', { bind, type: QueryTypes.SELECT }),
      db.query<{ n: number }>("SELECT count(*)::int AS n FROM plans WHERE entity_id = $1 AND workspace_id = $2 AND status = 'pending'", { bind, type: QueryTypes.SELECT }),
    ]);
    const count = (status: string) => goals.find((g) => g.status === status)?.n ?? 0;
    return { goals: { active: count('active'), achieved: count('achieved'), abandoned: count('abandoned') }, pending_plans: plans.n };
  },
};

/** A deleted workspace takes its goals and plans with it (idempotent: a second delivery finds none). */
export async function onWorkspaceDeleted(this: GoalsService, ctx: Context<WorkspaceDeletedPayload>): Promise<void> {
  const { entity_id: entityId, workspace_id: workspaceId } = ctx.params;
  const db = this.models.Goal.sequelize!;
  await db.transaction(async (transaction) => {
    await db.query('DELETE FROM plans WHERE entity_id = $1 AND workspace_id = $2', { bind: [entityId, workspaceId], transaction });
    await db.query('DELETE FROM goals WHERE entity_id = $1 AND workspace_id = $2', { bind: [entityId, workspaceId], transaction });
  });
  await this.goalsCache.invalidate(entityId);
}

/** A deleted agent no longer owns goals (a write of each: its version moves on). Plans keep the id as history. */
export async function onAgentDeleted(this: GoalsService, ctx: Context<AgentEventPayload>): Promise<void> {
  const { entity_id: entityId, agent_id: agentId } = ctx.params;
  const cleared = await this.models.Goal.sequelize!.query<{ id: string }>(
    'UPDATE goals SET agent_id = NULL, version = version + 1, updated_at = now() WHERE entity_id = $1 AND agent_id = $2 RETURNING id',
    { bind: [entityId, agentId], type: QueryTypes.SELECT },
  );
  if (cleared.length) await this.goalsCache.invalidate(entityId);
}
