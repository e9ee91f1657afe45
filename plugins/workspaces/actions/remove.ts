import type { Context } from 'moleculer';
import { WORKSPACE_DELETED_EVENT, type WorkspaceDeletedPayload } from '../../../kernel/workspace-contracts.ts';
import { loadWorkspace, WORKSPACE_ID_PARAM, type WorkspacesAction } from '../lookup.ts';
import { recordOwnActivity } from '../own-activity.ts';
import { WORKSPACE_SCHEMA, workspaceView } from '../views.ts';

/**
 * `DELETE /api/v1/workspaces/{workspace_id}`, owners and admins: the first delete archives
 * (200, the archived workspace, which is then read-only and left out of lists); deleting an
 * archived workspace removes it for good (204) and emits `workspace.deleted`, on which every
 * package removes its rows of that workspace (see kernel/workspace-contracts.ts).
 */
export const remove: WorkspacesAction = {
  rest: 'DELETE /:workspace_id',
  role: 'admin',
  summary: 'Archive a workspace, or delete an archived one for good',
  description:
    'First call: archives (200 with the archived workspace). A call on an archived workspace deletes it and everything in it (204); every package is told through the event `workspace.deleted`. Needs the role owner or admin.',
  tags: ['workspaces'],
  params: { ...WORKSPACE_ID_PARAM },
  response: {
    200: { description: 'Archived', schema: WORKSPACE_SCHEMA },
    204: { description: 'Deleted for good' },
  },
  async handler(ctx: Context<{ workspace_id: string }>) {
    const outcome = await this.models.Workspace.sequelize!.transaction(async (transaction) => {
      const row = await loadWorkspace(this, ctx, ctx.params.workspace_id, { transaction, lock: true });
      if (row.archived_at) {
        await row.destroy({ transaction });
        return { deleted: true as const, row };
      }
      row.set('archived_at', new Date());
      await row.save({ transaction });
      return { deleted: false as const, row };
    });
    const { row } = outcome;
    await this.listCache.invalidate(row.entity_id);
    if (outcome.deleted) {
      const payload: WorkspaceDeletedPayload = { entity_id: row.entity_id, workspace_id: row.id };
      await ctx.emit(WORKSPACE_DELETED_EVENT, payload);
      this.logger.info(payload, 'workspace deleted for good');
      return undefined;
    }
    await recordOwnActivity(this, ctx, { workspace_id: row.id, kind: 'workspace.archived', summary: `Workspace "${row.name}" archived` });
    return workspaceView(row);
  },
};
