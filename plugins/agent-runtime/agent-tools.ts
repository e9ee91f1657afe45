import type { Context } from 'moleculer';
import { AGENTS_RESOLVE_ACTION, type AgentView } from '../../kernel/agents-contract.ts';
import { readGovernance } from '../../kernel/governance.ts';
import { scanTools } from '../../kernel/tools/registry.ts';
import { decideTool } from '../../kernel/tools/policy.ts';

const TOOL_VIEW = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    available: { type: 'boolean', description: 'Served by some node right now (a tool package may be hot-loaded later).' },
    description: { type: ['string', 'null'] },
    category: { type: ['string', 'null'] },
    risk: { type: ['string', 'null'], enum: ['low', 'medium', 'high', null] },
    side_effect: { type: ['string', 'null'], enum: ['none', 'idempotent', 'non_idempotent', null] },
    parameters: { type: ['object', 'null'] },
    policy: {
      type: 'object',
      properties: { decision: { type: 'string', enum: ['allow', 'ask', 'deny'] }, reason: { type: 'string' } },
      required: ['decision', 'reason'],
    },
  },
  required: ['name', 'available', 'policy'],
};

/**
 * `GET /api/v1/agents/{agent_id}/tools?workspace_id=`: the agent's bound tools, each with its
 * declaration and the effective policy in a workspace (the one given, else the agent's own;
 * entity-wide agents without one are judged by the default governance).
 */
export const agentTools = {
  rest: 'GET /:agent_id/tools',
  summary: "An agent's bound tools with their effective policy",
  description: 'Policy is the bound set ∩ the workspace governance (rules per tool and per risk level, risk limit, approval mode), as the runtime decides it on every call.',
  tags: ['agents'],
  params: { $$strict: true, agent_id: { type: 'string', min: 1, max: 64 }, workspace_id: { type: 'uuid', optional: true } },
  response: {
    type: 'object',
    properties: { agent_id: { type: 'string' }, workspace_id: { type: ['string', 'null'] }, items: { type: 'array', items: TOOL_VIEW } },
    required: ['agent_id', 'workspace_id', 'items'],
  },
  async handler(ctx: Context<{ agent_id: string; workspace_id?: string }>) {
    const agent = await ctx.call<AgentView, { agent_id: string }>(AGENTS_RESOLVE_ACTION, { agent_id: ctx.params.agent_id });
    const workspaceId = ctx.params.workspace_id ?? agent.workspace_id;
    const governance = workspaceId ? readGovernance(await ctx.call<Record<string, unknown>, { workspace_id: string }>('workspaces.getGovernance', { workspace_id: workspaceId })) : readGovernance(null);
    const loaded = new Map(scanTools(ctx.broker).tools.map((t) => [t.declaration.name, t.declaration]));
    const items = agent.tools.map((name) => {
      const tool = loaded.get(name);
      if (!tool) return { name, available: false, description: null, category: null, risk: null, side_effect: null, parameters: null, policy: { decision: 'deny', reason: 'no such tool is loaded' } };
      return {
        name, available: true, description: tool.description, category: tool.category ?? null, risk: tool.risk, side_effect: tool.side_effect, parameters: tool.parameters,
        policy: decideTool({ tool, bound: agent.tools, governance }),
      };
    });
    return { agent_id: agent.id, workspace_id: workspaceId ?? null, items };
  },
};
