import type { Context } from 'moleculer';
import { loadWorkspace, WORKSPACE_ID_PARAM, type WorkspacesAction } from '../lookup.ts';
import { workspaceView } from '../views.ts';

/**
 * `workspaces.resolve` (internal, no HTTP): the caller's workspace without its dashboard, for
 * packages that only need to know a workspace exists in the caller's entity (and whether it
 * is archived). 404 for a missing or another entity's workspace, like the public route.
 */
export const resolve: WorkspacesAction = {
  visibility: 'public',
  params: { ...WORKSPACE_ID_PARAM },
  async handler(ctx: Context<{ workspace_id: string }>) {
    return workspaceView(await loadWorkspace(this, ctx, ctx.params.workspace_id));
  },
};
