import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { assertNotArchived, loadWorkspace, WORKSPACE_ID_PARAM, type WorkspacesAction } from '../lookup.ts';
import { CATEGORY_RULE, changesOf, DESCRIPTION_RULE, NAME_RULE, PROVIDER_ACCESS_RULE, STATUS_RULE } from '../fields.ts';
import { recordOwnActivity } from '../own-activity.ts';
import { WORKSPACE_SCHEMA, workspaceView } from '../views.ts';
import type { ProviderAccess, WorkspaceStatus } from '../model.ts';

interface UpdateParams {
  workspace_id: string;
  name?: string;
  description?: string;
  category?: string;
  status?: WorkspaceStatus;
  provider_access?: ProviderAccess;
}

/**
 * `PUT /api/v1/workspaces/{workspace_id}`: changes the fields given. A request that changes
 * nothing writes nothing (same version, no activity entry). Granting or withdrawing provider
 * access is for owners and admins.
 */
export const update: WorkspacesAction = {
  rest: 'PUT /:workspace_id',
  summary: 'Update a workspace',
  description: 'Changes the fields given; fields left out keep their value. Changing `provider_access` needs the role owner or admin. An archived workspace is read-only (409).',
  tags: ['workspaces'],
  params: {
    ...WORKSPACE_ID_PARAM,
    name: { ...NAME_RULE, optional: true },
    description: { ...DESCRIPTION_RULE, optional: true },
    category: { ...CATEGORY_RULE, optional: true },
    status: { ...STATUS_RULE, optional: true },
    provider_access: { ...PROVIDER_ACCESS_RULE, optional: true },
  },
  response: WORKSPACE_SCHEMA,
  async handler(ctx: Context<UpdateParams>) {
    const { workspace_id, ...requested } = ctx.params;
    const { row, changes } = await this.models.Workspace.sequelize!.transaction(async (transaction) => {
      const row = await loadWorkspace(this, ctx, workspace_id, { transaction, lock: true });
      assertNotArchived(row);
      const changes = changesOf(row.get({ plain: true }) as unknown as Record<string, unknown>, requested);
      if (changes.provider_access && !['owner', 'admin'].includes(identityOf(ctx).role)) {
        throw ERRORS.FORBIDDEN('Changing provider_access needs the role owner or admin.');
      }
      if (Object.keys(changes).length > 0) {
        row.set(Object.fromEntries(Object.entries(changes).map(([field, { to }]) => [field, to])));
        await row.save({ transaction });
      }
      return { row, changes };
    });
    const fields = Object.keys(changes);
    if (fields.length > 0) {
      await this.listCache.invalidate(row.entity_id);
      await recordOwnActivity(this, ctx, { workspace_id: row.id, kind: 'workspace.updated', summary: `Workspace "${row.name}" updated (${fields.join(', ')})`, data: { changes } });
    }
    return workspaceView(row);
  },
};
