import type { Context } from 'moleculer';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { loadWorkspace, WORKSPACE_ID_PARAM, type WorkspacesAction } from '../lookup.ts';
import { collectDashboard } from '../dashboard.ts';
import { WORKSPACE_SCHEMA, workspaceView } from '../views.ts';

/** `GET /api/v1/workspaces/{workspace_id}`: the workspace plus what every loaded package contributes to its dashboard. */
export const get: WorkspacesAction = {
  rest: 'GET /:workspace_id',
  summary: 'Get a workspace with its dashboard',
  description:
    '`dashboard` holds one entry per service that publishes a `workspaceDashboard` action, keyed by service name; a contributor that failed or did not answer in time shows as `{ "error": "..." }`.',
  tags: ['workspaces'],
  params: { ...WORKSPACE_ID_PARAM },
  response: {
    type: 'object',
    properties: {
      ...WORKSPACE_SCHEMA.properties,
      dashboard: { type: 'object', additionalProperties: { type: 'object' }, description: 'Contributions keyed by service name.' },
    },
    required: [...WORKSPACE_SCHEMA.required, 'dashboard'],
  },
  async handler(ctx: Context<{ workspace_id: string }>) {
    const row = await loadWorkspace(this, ctx, ctx.params.workspace_id);
    const dashboard = await collectDashboard(ctx, this.broker, this.logger, { entity_id: entityOf(ctx), workspace_id: row.id });
    return { ...workspaceView(row), dashboard };
  },
};
