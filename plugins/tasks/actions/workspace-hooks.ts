import type { Context, Service } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { WORKSPACE_DASHBOARD_PARAMS, type WorkspaceDashboardParams, type WorkspaceDeletedPayload } from '../../../kernel/workspace-contracts.ts';
import { kernelOf } from '../../../kernel/context.ts';
import { BOARD_COLUMNS } from '../domain/board-columns.ts';
import { countByStatus } from '../ops/query.ts';
import { dbOf, type TasksAction } from '../service.ts';

/** The workspace dashboard's task summary: counts per board column. */
export const workspaceDashboard: TasksAction = {
  visibility: 'public',
  params: WORKSPACE_DASHBOARD_PARAMS,
  async handler(ctx: Context<WorkspaceDashboardParams>) {
    const counts = await countByStatus(dbOf(this), ctx.params.entity_id, { workspace_id: ctx.params.workspace_id }, new Date());
    const columns = Object.fromEntries(BOARD_COLUMNS.map((c) => [c.key, c.statuses.reduce((n, s) => n + (counts.get(s) ?? 0), 0)]));
    const total = Object.values(columns).reduce((a, b) => a + b, 0);
    return { total, open: total - columns.done, columns };
  },
};

/**
 * A deleted workspace takes its tasks with it (idempotent: a second delivery finds none).
 * Subtasks are deleted before their parents; attachment objects go after the rows.
 */
export async function onWorkspaceDeleted(this: Service, ctx: Context<WorkspaceDeletedPayload>): Promise<void> {
  const db = kernelOf(this.broker).db;
  const { entity_id: entityId, workspace_id: workspaceId } = ctx.params;
  const keys = await db.transaction(async (transaction) => {
    const files = await db.query<{ object_key: string }>(
      'SELECT a.object_key FROM task_attachments a JOIN tasks t ON t.id = a.task_id WHERE t.entity_id = $1 AND t.workspace_id = $2',
      { bind: [entityId, workspaceId], type: QueryTypes.SELECT, transaction },
    );
    // subtasks living in other workspaces lose their parent: a change like any other, with its history
    // (history ids here are v4 UUIDs from PostgreSQL; entries are ordered by created_at first)
    await db.query(
      `WITH detached AS (
         UPDATE tasks t SET parent_id = NULL, version = t.version + 1, updated_at = now()
         FROM tasks p WHERE p.id = t.parent_id AND p.entity_id = $1 AND p.workspace_id = $2
           AND t.entity_id = $1 AND t.workspace_id IS DISTINCT FROM $2
         RETURNING t.id, t.entity_id, p.id AS old_parent
       )
       INSERT INTO task_history (id, entity_id, task_id, action, actor_type, actor_id, changes, created_at)
       SELECT gen_random_uuid(), entity_id, id, 'update', 'system', 'workspace.deleted',
              jsonb_build_array(jsonb_build_object('field', 'parent_id', 'from', old_parent, 'to', null)), now()
       FROM detached`,
      { bind: [entityId, workspaceId], transaction },
    );
    await db.query('UPDATE tasks SET parent_id = NULL WHERE entity_id = $1 AND workspace_id = $2 AND parent_id IS NOT NULL', { bind: [entityId, workspaceId], transaction });
    await db.query('DELETE FROM tasks WHERE entity_id = $1 AND workspace_id = $2', { bind: [entityId, workspaceId], transaction });
    return files.map((f) => f.object_key);
  });
  const objects = kernelOf(this.broker).objects;
  for (const key of keys) await objects.delete(key).catch((err: unknown) => this.logger.warn({ err, key }, 'could not delete an attachment object'));
}
