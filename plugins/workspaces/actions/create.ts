import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import type { WorkspacesAction } from '../lookup.ts';
import { CATEGORY_RULE, DESCRIPTION_RULE, NAME_RULE } from '../fields.ts';
import { recordOwnActivity } from '../own-activity.ts';
import { WORKSPACE_SCHEMA, workspaceView } from '../views.ts';

interface CreateParams {
  name: string;
  description?: string;
  category?: string;
}

/** `POST /api/v1/workspaces`: a new active workspace of the caller's entity, without provider access. */
export const create: WorkspacesAction = {
  rest: 'POST /',
  summary: 'Create a workspace',
  tags: ['workspaces'],
  params: {
    name: NAME_RULE,
    description: { ...DESCRIPTION_RULE, optional: true },
    category: { ...CATEGORY_RULE, optional: true },
  },
  response: { 201: { description: 'The new workspace', schema: WORKSPACE_SCHEMA } },
  async handler(ctx: Context<CreateParams, { $statusCode?: number }>) {
    const who = identityOf(ctx);
    const { name, description = '', category = '' } = ctx.params;
    const row = await tenantRepo(this.models.Workspace, 'workspace').create(ctx, { id: newId(), name, description, category, created_by: who.id });
    await this.listCache.invalidate(who.entity_id);
    await recordOwnActivity(this, ctx, { workspace_id: row.id, kind: 'workspace.created', summary: `Workspace "${name}" created`, data: { name, description, category } });
    ctx.meta.$statusCode = 201;
    return workspaceView(row);
  },
};
