import type { Context } from 'moleculer';
import type { JSONSchema } from '../../../kernel/openapi/types.ts';
import { Op, type WhereOptions } from 'sequelize';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import type { WorkspacesAction } from '../lookup.ts';
import { STATUS_RULE } from '../fields.ts';
import { WORKSPACE_SCHEMA, workspaceView } from '../views.ts';
import type { WorkspaceRow } from '../model.ts';

/** what a listed workspace shows (its settings documents are read by their own routes) */
const LIST_COLUMNS = ['id', 'entity_id', 'name', 'description', 'category', 'status', 'provider_access', 'archived_at', 'created_by', 'created_at', 'updated_at', 'version'];

interface ListParams {
  limit: number;
  offset: number;
  status?: 'active' | 'paused';
  include_archived: boolean;
  q?: string;
}

/** `GET /api/v1/workspaces`: the caller's workspaces, newest first; archived ones only on request. */
export const list: WorkspacesAction = {
  rest: 'GET /',
  summary: 'List workspaces',
  description: 'Newest first. Archived workspaces are left out unless `include_archived=true`; `q` matches a part of the name (case-insensitive).',
  tags: ['workspaces'],
  params: {
    ...PAGING_PARAMS,
    status: { ...STATUS_RULE, optional: true },
    include_archived: { type: 'boolean', default: false, convert: true },
    q: { type: 'string', trim: true, min: 1, max: 120, optional: true },
  },
  response: pageSchema(WORKSPACE_SCHEMA) as JSONSchema,
  async handler(ctx: Context<ListParams, { $responseType?: string }>) {
    const { limit, offset, status, include_archived, q } = ctx.params;
    ctx.meta.$responseType = 'application/json; charset=utf-8';
    return this.listCache.read(entityOf(ctx), { limit, offset, status, include_archived, q }, async () => {
      const where: Record<string | symbol, unknown> = {};
      if (status) where.status = status;
      if (!include_archived) where.archived_at = null;
      if (q) where.name = { [Op.iLike]: `%${escapeLike(q)}%` };
      const page = await tenantRepo(this.models.Workspace, 'workspace').pageRows<WorkspaceRow>(ctx, {
        where: where as WhereOptions,
        order: [['created_at', 'DESC'], ['id', 'DESC']],
        limit,
        offset,
        attributes: LIST_COLUMNS,
      });
      return JSON.stringify({ ...page, items: page.items.map(workspaceView) });
    });
  },
};

/** `%`, `_` and `\` match literally in a LIKE pattern once escaped (PostgreSQL's default escape is `\`). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
