import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { WORKSPACE_DASHBOARD_PARAMS, type WorkspaceDashboardParams, type WorkspaceDeletedPayload } from '../../../kernel/workspace-contracts.ts';
import { AGENT_DELETED_EVENT, type AgentEventPayload } from '../../../kernel/agents-contract.ts';
import { emitAfterCommit, type AgentsAction, type AgentsService } from '../service.ts';

/** The workspace dashboard's agent summary: how many agents the workspace has (entity-wide ones not counted) and its active master. */
export const workspaceDashboard: AgentsAction = {
  visibility: 'public',
  params: WORKSPACE_DASHBOARD_PARAMS,
  async handler(ctx: Context<WorkspaceDashboardParams>) {
    const [row] = await this.Agent.sequelize!.query<{ agents: number; master_agent_id: string | null }>(
      `SELECT count(*)::int AS agents, (array_agg(id) FILTER (WHERE is_master AND status = 'active'))[1]::text AS master_agent_id
       FROM agents WHERE entity_id = $1 AND workspace_id = $2`,
      { bind: [ctx.params.entity_id, ctx.params.workspace_id], type: QueryTypes.SELECT },
    );
    return { agents: row.agents, master_agent_id: row.master_agent_id };
  },
};

/** A deleted workspace takes its agents with it (idempotent: a second delivery finds none); agent.deleted for each. */
export async function onWorkspaceDeleted(this: AgentsService, ctx: Context<WorkspaceDeletedPayload>): Promise<void> {
  const { entity_id: entityId, workspace_id: workspaceId } = ctx.params;
  const deleted = await this.Agent.sequelize!.query<{ id: string; version: number }>(
    'DELETE FROM agents WHERE entity_id = $1 AND workspace_id = $2 RETURNING id, version',
    { bind: [entityId, workspaceId], type: QueryTypes.SELECT },
  );
  if (deleted.length === 0) return;
  await this.listCache.invalidate(entityId);
  for (const { id, version } of deleted) {
    const payload: AgentEventPayload = { entity_id: entityId, agent_id: id, workspace_id: workspaceId, version, actor: { type: 'system', id: 'workspace.deleted' } };
    emitAfterCommit(ctx, AGENT_DELETED_EVENT, payload);
  }
}
