import type { Context } from 'moleculer';
import { stateOf, type WorkspaceStateView } from '../../../kernel/workspace-state.ts';
import { loadWorkspace, WORKSPACE_ID_PARAM, type WorkspacesAction } from '../lookup.ts';

/**
 * `workspaces.state` (internal, no HTTP): whether a workspace of the given entity is active,
 * paused or archived, for the kernel's archived-workspace check (kernel/workspace-state.ts),
 * which also runs for public routes where no user is known. 404 like `resolve`.
 */
export const state: WorkspacesAction = {
  visibility: 'public',
  params: { entity_id: { type: 'string', min: 1, max: 64 }, ...WORKSPACE_ID_PARAM },
  async handler(ctx: Context<{ entity_id: string; workspace_id: string }>): Promise<WorkspaceStateView> {
    const row = await loadWorkspace(this, ctx.params.entity_id, ctx.params.workspace_id);
    return { workspace_id: row.id, state: stateOf(row) };
  },
};
