import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { AGENT_DELETED_EVENT, type AgentEventPayload } from '../../../kernel/agents-contract.ts';
import { AGENT_ID_PARAM, emitAfterCommit, loadAgent, type AgentsAction } from '../service.ts';

/** `DELETE /api/v1/agents/{agent_id}`, owners and admins: removes the agent for good (204). */
export const remove: AgentsAction = {
  rest: 'DELETE /:agent_id',
  role: 'admin',
  summary: 'Delete an agent',
  description: 'Needs the role owner or admin. A deleted master leaves its workspace without one.',
  tags: ['agents'],
  params: { ...AGENT_ID_PARAM },
  response: { 204: { description: 'Deleted' } },
  async handler(ctx: Context<{ agent_id: string }>) {
    const row = await this.Agent.sequelize!.transaction(async (transaction) => {
      const row = await loadAgent(this, ctx, ctx.params.agent_id, { transaction, lock: true });
      await row.destroy({ transaction });
      return row;
    });
    await this.listCache.invalidate(row.entity_id);
    const who = identityOf(ctx);
    const payload: AgentEventPayload = { entity_id: row.entity_id, agent_id: row.id, workspace_id: row.workspace_id, version: row.version, actor: { type: 'user', id: who.id } };
    emitAfterCommit(ctx, AGENT_DELETED_EVENT, payload);
    return undefined;
  },
};
