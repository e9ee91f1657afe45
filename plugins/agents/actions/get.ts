import type { Context } from 'moleculer';
import { AGENT_ID_PARAM, loadAgent, type AgentsAction } from '../service.ts';
import { AGENT_SCHEMA, agentView } from '../views.ts';

/** `GET /api/v1/agents/{agent_id}`: one agent of the caller's entity. */
export const get: AgentsAction = {
  rest: 'GET /:agent_id',
  summary: 'Get an agent',
  tags: ['agents'],
  params: { ...AGENT_ID_PARAM },
  response: AGENT_SCHEMA,
  async handler(ctx: Context<{ agent_id: string }>) {
    return agentView(await loadAgent(this, ctx, ctx.params.agent_id));
  },
};
