import type { Context } from 'moleculer';
import type { WhereOptions } from 'sequelize';
import type { JSONSchema } from '../../../kernel/openapi/types.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { GOAL_STATUS_RULE, UUID_RULE } from '../fields.ts';
import type { GoalsAction } from '../service.ts';
import { GOAL_SCHEMA, goalView } from '../views.ts';
import type { GoalAttributes } from '../model.ts';

interface ListParams {
  limit: number;
  offset: number;
  workspace_id?: string;
  agent_id?: string;
  status?: GoalAttributes['status'];
}

/** `GET /api/v1/goals`: the caller's goals, newest first. */
export const list: GoalsAction = {
  rest: 'GET /',
  summary: 'List goals',
  description: 'Newest first; `workspace_id`, `agent_id` and `status` filter.',
  tags: ['goals'],
  params: {
    ...PAGING_PARAMS,
    workspace_id: { ...UUID_RULE, optional: true },
    agent_id: { ...UUID_RULE, optional: true },
    status: { ...GOAL_STATUS_RULE, optional: true },
  },
  response: pageSchema(GOAL_SCHEMA) as JSONSchema,
  async handler(ctx: Context<ListParams, { $responseType?: string }>) {
    const { limit, offset, status } = ctx.params;
    const workspaceId = ctx.params.workspace_id?.toLowerCase();
    const agentId = ctx.params.agent_id?.toLowerCase();
    ctx.meta.$responseType = 'application/json; charset=utf-8';
    return this.goalsCache.read(entityOf(ctx), { limit, offset, status, workspaceId, agentId }, async () => {
      const where: Record<string, unknown> = {};
      if (workspaceId) where.workspace_id = workspaceId;
      if (agentId) where.agent_id = agentId;
      if (status) where.status = status;
      const page = await tenantRepo(this.models.Goal, 'goal').pageRows<GoalAttributes>(ctx, {
        where: where as WhereOptions,
        order: [['created_at', 'DESC'], ['id', 'DESC']],
        limit,
        offset,
      });
      return JSON.stringify({ ...page, items: page.items.map(goalView) });
    });
  },
};
