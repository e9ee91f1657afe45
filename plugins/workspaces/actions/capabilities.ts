import type { Context } from 'moleculer';
import { loadWorkspace, WORKSPACE_ID_PARAM, type WorkspacesAction } from '../lookup.ts';
import { CAPABILITIES_SCHEMA, liveCapabilities } from '../capabilities.ts';

/** `GET /api/v1/workspaces/{workspace_id}/capabilities`: tools, node types and channels available now. */
export const capabilities: WorkspacesAction = {
  rest: 'GET /:workspace_id/capabilities',
  summary: 'Tools, workflow node types and channels available to a workspace',
  description: 'Read live from the service registry: a package loaded or unloaded while the service runs shows here at once.',
  tags: ['workspaces'],
  params: { ...WORKSPACE_ID_PARAM },
  response: CAPABILITIES_SCHEMA,
  async handler(ctx: Context<{ workspace_id: string }>) {
    const row = await loadWorkspace(this, ctx, ctx.params.workspace_id);
    return { workspace_id: row.id, ...liveCapabilities(this.broker) };
  },
};
