import type { Context, Service } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { entityOf } from '../../kernel/tenancy/identity.ts';
import type { WorkspaceOf, WorkspaceTarget } from '../../kernel/workspace-state.ts';
import { hashCode } from './ops/public-codes.ts';
import { dbOf } from './service.ts';

/**
 * The `workspaceOf` declarations of this package's writes: which workspace a call writes into,
 * so the kernel refuses it when that workspace is archived. A task that is not found names no
 * workspace; the action answers its own 404.
 */

/** The workspace of the caller's task `params.id`. */
export const taskWorkspace: WorkspaceOf = async (ctx: Context, svc: Service): Promise<WorkspaceTarget> => {
  const entityId = entityOf(ctx);
  const id = (ctx.params as { id?: unknown }).id;
  if (typeof id !== 'string' || !isUuid(id)) return { entity_id: entityId, workspace_ids: [] };
  const [row] = await dbOf(svc).query<{ workspace_id: string | null }>('SELECT workspace_id FROM tasks WHERE id = $1 AND entity_id = $2', { bind: [id, entityId], type: QueryTypes.SELECT });
  return { entity_id: entityId, workspace_ids: [row?.workspace_id] };
};

/** The workspace of the task a live public session code `params.code` opens (no user: the code names the entity). */
export const publicCodeWorkspace: WorkspaceOf = async (ctx: Context, svc: Service): Promise<WorkspaceTarget | null> => {
  const [row] = await dbOf(svc).query<{ entity_id: string; workspace_id: string | null }>(
    `SELECT t.entity_id, t.workspace_id FROM task_public_codes c JOIN tasks t ON t.id = c.task_id AND t.entity_id = c.entity_id
     WHERE c.code_hash = $1 AND c.revoked_at IS NULL AND c.expires_at > now()`,
    { bind: [hashCode((ctx.params as { code: string }).code)], type: QueryTypes.SELECT },
  );
  return row ? { entity_id: row.entity_id, workspace_ids: [row.workspace_id] } : null;
};
