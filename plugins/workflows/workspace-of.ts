import type { Context, Service } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { kernelOf } from '../../kernel/context.ts';
import { entityOf } from '../../kernel/tenancy/identity.ts';
import type { WorkspaceOf, WorkspaceTarget } from '../../kernel/workspace-state.ts';
import type { WorkflowsService } from './service.ts';

/**
 * The `workspaceOf` declarations of this package's writes: the workspace of the binding or run
 * a call acts on, so the kernel refuses the call when that workspace is archived. A record that
 * is not found names no workspace; the action answers its own 404.
 */

async function workspaceOfRow(svc: Service, table: 'workflow_bindings' | 'workflow_runs', entityId: string, id: unknown): Promise<WorkspaceTarget> {
  if (typeof id !== 'string' || !isUuid(id)) return { entity_id: entityId, workspace_ids: [] };
  const [row] = await kernelOf(svc.broker).db.query<{ workspace_id: string | null }>(`SELECT workspace_id FROM ${table} WHERE entity_id = $1 AND id = $2`, {
    bind: [entityId, id],
    type: QueryTypes.SELECT,
  });
  return { entity_id: entityId, workspace_ids: [row?.workspace_id] };
}

/** The workspace of the caller's binding `params.id`. */
export const bindingWorkspace: WorkspaceOf = (ctx: Context, svc: Service) => workspaceOfRow(svc, 'workflow_bindings', entityOf(ctx), (ctx.params as { id?: unknown }).id);

/** The workspace of the caller's run `params.run_id`. */
export const runWorkspace: WorkspaceOf = (ctx: Context, svc: Service) => workspaceOfRow(svc, 'workflow_runs', entityOf(ctx), (ctx.params as { run_id?: unknown }).run_id);

/** The workspace of the binding whose secret is the path's `token` (a public route: the binding names the entity). */
export const webhookWorkspace: WorkspaceOf = async (ctx: Context, svc: Service): Promise<WorkspaceTarget | null> => {
  const binding = await (svc as WorkflowsService).webhooks.lookup((ctx.params as { token: string }).token);
  return binding ? { entity_id: binding.entity_id, workspace_ids: [binding.workspace_id] } : null;
};
