import type { Context, Service } from 'moleculer';
import { validate as isUuid } from 'uuid';
import { entityOf } from '../../kernel/tenancy/identity.ts';
import type { WorkspaceOf, WorkspaceTarget } from '../../kernel/workspace-state.ts';
import type { JobsService } from './service.ts';

/**
 * `workspaceOf` of this package's writes to a job (kernel/workspace-state.ts): the kernel refuses
 * them with 409 while the job's workspace is archived. A job that is not found names no
 * workspace; the action answers its own 404.
 */
export const jobWorkspace: WorkspaceOf = async (ctx: Context, svc: Service): Promise<WorkspaceTarget> => {
  const entityId = entityOf(ctx);
  const id = (ctx.params as { job_id?: unknown }).job_id;
  if (typeof id !== 'string' || !isUuid(id)) return { entity_id: entityId, workspace_ids: [] };
  const row = await (svc as JobsService).sql.one<{ workspace_id: string | null }>('SELECT workspace_id FROM jobs WHERE id = $1 AND entity_id = $2', [id, entityId]);
  return { entity_id: entityId, workspace_ids: [row?.workspace_id] };
};
