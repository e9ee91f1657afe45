import type { Context } from 'moleculer';
import type { Role } from '../../../kernel/tenancy/roles.ts';
import { assertNotArchived, loadWorkspace, WORKSPACE_ID_PARAM, type WorkspacesAction } from '../lookup.ts';
import { changesOf } from '../fields.ts';
import { recordOwnActivity } from '../own-activity.ts';

export interface SettingsOptions<T> {
  /** the jsonb column holding it */
  column: 'operating_model' | 'governance';
  /** the route segment after the workspace id */
  path: string;
  /** what people call it, for summaries */
  label: string;
  read: (stored: Record<string, unknown>) => T;
  apply: (current: T, requested: Partial<T>) => T;
  params: Record<string, unknown>;
  schema: Record<string, unknown>;
  /** the least role that may change it (members when left out) */
  writeRole?: Role;
  description: string;
}

/**
 * `GET` and `PUT /api/v1/workspaces/{workspace_id}/<path>` for a configuration kept in one
 * jsonb column of the workspace: read with defaults filled in; the keys a PUT gives replace
 * the stored ones; a change bumps the workspace's version and is recorded as activity.
 */
export function settingsActions<T extends object>(opts: SettingsOptions<T>): { read: WorkspacesAction; write: WorkspacesAction } {
  const read: WorkspacesAction = {
    rest: `GET /:workspace_id/${opts.path}`,
    summary: `Get the ${opts.label} of a workspace`,
    description: opts.description,
    tags: ['workspaces'],
    params: { ...WORKSPACE_ID_PARAM },
    response: opts.schema,
    async handler(ctx: Context<{ workspace_id: string }>) {
      const row = await loadWorkspace(this, ctx, ctx.params.workspace_id);
      return opts.read(row[opts.column]);
    },
  };
  const write: WorkspacesAction = {
    rest: `PUT /:workspace_id/${opts.path}`,
    summary: `Change the ${opts.label} of a workspace`,
    description: `${opts.description} Keys left out keep their value. An archived workspace is read-only (409).`,
    role: opts.writeRole,
    tags: ['workspaces'],
    params: { ...WORKSPACE_ID_PARAM, ...opts.params },
    response: opts.schema,
    async handler(ctx: Context<{ workspace_id: string } & Partial<T>>) {
      const { workspace_id, ...requested } = ctx.params;
      const { row, next, changes } = await this.models.Workspace.sequelize!.transaction(async (transaction) => {
        const row = await loadWorkspace(this, ctx, workspace_id, { transaction, lock: true });
        assertNotArchived(row);
        const current = opts.read(row[opts.column]);
        const next = opts.apply(current, requested as unknown as Partial<T>);
        const changes = changesOf(current as Record<string, unknown>, next as Record<string, unknown>);
        if (Object.keys(changes).length > 0) {
          row.set(opts.column, next as unknown as Record<string, unknown>);
          await row.save({ transaction });
        }
        return { row, next, changes };
      });
      const fields = Object.keys(changes);
      if (fields.length > 0) {
        await this.listCache.invalidate(row.entity_id);
        await recordOwnActivity(this, ctx, {
          workspace_id: row.id,
          kind: `workspace.${opts.column}.updated`,
          summary: `The ${opts.label} of "${row.name}" changed (${fields.join(', ')})`,
          data: { changes },
        });
      }
      return next;
    },
  };
  return { read, write };
}
