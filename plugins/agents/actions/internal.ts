import type { Context } from 'moleculer';
import { validate as isUuid } from 'uuid';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import type { AgentView } from '../../../kernel/agents-contract.ts';
import { AGENT_ID_PARAM, loadAgent, type AgentsAction } from '../service.ts';
import { agentView } from '../views.ts';

/** `agents.resolve` (internal): the caller's agent, 404 when it is not one of the caller's entity. */
export const resolve: AgentsAction = {
  visibility: 'public',
  params: { $$strict: true, ...AGENT_ID_PARAM },
  async handler(ctx: Context<{ agent_id: string }>): Promise<AgentView> {
    return agentView(await loadAgent(this, ctx, ctx.params.agent_id));
  },
};

/** `agents.master` (internal): the workspace's active master agent, or null (none, or disabled). */
export const master: AgentsAction = {
  visibility: 'public',
  params: { $$strict: true, workspace_id: { type: 'string', min: 1, max: 64 } },
  async handler(ctx: Context<{ workspace_id: string }>): Promise<AgentView | null> {
    const workspaceId = ctx.params.workspace_id.toLowerCase();
    if (!isUuid(workspaceId)) return null;
    const row = await this.Agent.findOne({ where: { entity_id: entityOf(ctx), workspace_id: workspaceId, is_master: true, status: 'active' } });
    return row ? agentView(row) : null;
  },
};
