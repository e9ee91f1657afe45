import type { Context } from 'moleculer';
import { Op, type WhereOptions } from 'sequelize';
import type { JSONSchema } from '../../../kernel/openapi/types.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { AGENT_STATUSES } from '../fields.ts';
import type { AgentsAction } from '../service.ts';
import { AGENT_SCHEMA, agentView } from '../views.ts';
import type { AgentAttributes } from '../model.ts';

interface ListParams {
  limit: number;
  offset: number;
  workspace_id?: string;
  q?: string;
  status?: (typeof AGENT_STATUSES)[number];
  is_master?: boolean;
}

/** `GET /api/v1/agents`: the caller's agents, newest first. */
export const list: AgentsAction = {
  rest: 'GET /',
  summary: 'List agents',
  description:
    'Newest first. `workspace_id`: the agents of that workspace plus the entity-wide ones; `q` matches a part of the name (case-insensitive); `status` and `is_master` filter.',
  tags: ['agents'],
  params: {
    ...PAGING_PARAMS,
    workspace_id: { type: 'uuid', optional: true },
    q: { type: 'string', trim: true, min: 1, max: 120, optional: true },
    status: { type: 'enum', values: [...AGENT_STATUSES], optional: true },
    is_master: { type: 'boolean', convert: true, optional: true },
  },
  response: pageSchema(AGENT_SCHEMA) as JSONSchema,
  async handler(ctx: Context<ListParams, { $responseType?: string }>) {
    const { limit, offset, status, is_master, q } = ctx.params;
    const workspaceId = ctx.params.workspace_id?.toLowerCase();
    ctx.meta.$responseType = 'application/json; charset=utf-8';
    return this.listCache.read(entityOf(ctx), { limit, offset, status, is_master, q, workspaceId }, async () => {
      const where: Record<string | symbol, unknown> = {};
      if (workspaceId) where.workspace_id = { [Op.or]: [workspaceId, null] };
      if (status) where.status = status;
      if (is_master !== undefined) where.is_master = is_master;
      if (q) where.name = { [Op.iLike]: `%${escapeLike(q)}%` };
      const page = await tenantRepo(this.Agent, 'agent').pageRows<AgentAttributes>(ctx, {
        where: where as WhereOptions,
        order: [['created_at', 'DESC'], ['id', 'DESC']],
        limit,
        offset,
      });
      return JSON.stringify({ ...page, items: page.items.map(agentView) });
    });
  },
};

/** `%`, `_` and `\` match literally in a LIKE pattern once escaped (PostgreSQL's default escape is `\`). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
