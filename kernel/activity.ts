import type { Context } from 'moleculer';

/**
 * The one way any package writes to a workspace's activity log (the append-only feed served
 * at `GET /api/v1/workspaces/{workspace_id}/activity`). It calls the workspaces package's
 * internal action RECORD_ACTIVITY_ACTION, on whichever node serves it.
 *
 *   await recordActivity(ctx, { workspace_id, kind: 'task.created', summary: `Task "${title}" created`, data: { task_id } });
 *
 * The entity is the caller's (`ctx.meta.user.entity_id`); work without a user (a scheduler
 * tick, a queue job) names it with `entity_id` and says who acted with `actor`. The actor
 * defaults to the calling user, else to the system acting through the calling service.
 * It throws when the workspace is not one of that entity's (404), when the entry is invalid
 * (422), or when the workspaces package is not running: a caller for whom the log entry is
 * secondary to its own work catches and logs.
 */

export const RECORD_ACTIVITY_ACTION = 'workspaces.recordActivity';

export type ActivityActorType = 'user' | 'agent' | 'system';

export interface ActivityActor {
  type: ActivityActorType;
  id: string;
}

export interface ActivityEntry {
  workspace_id: string;
  /** dotted lower-case name, e.g. `workspace.updated`, `task.created` (at most 100 characters) */
  kind: string;
  /** one line for people (1 to 500 characters) */
  summary: string;
  /** structured details (a JSON object of at most 16 KiB) */
  data?: Record<string, unknown>;
  actor?: ActivityActor;
  /** only without a user in `ctx.meta` (system work); with a user it must be the user's entity */
  entity_id?: string;
}

/** What RECORD_ACTIVITY_ACTION receives. */
export interface RecordActivityParams {
  entity_id: string;
  workspace_id: string;
  kind: string;
  summary: string;
  data?: Record<string, unknown>;
  actor: ActivityActor;
}

export async function recordActivity(ctx: Context, entry: ActivityEntry): Promise<void> {
  await ctx.call(RECORD_ACTIVITY_ACTION, activityParams(ctx, entry));
}

/** The entity and actor of an entry, from the entry and the caller (exported for tests). */
export function activityParams(ctx: Pick<Context, 'meta' | 'service'>, entry: ActivityEntry): RecordActivityParams {
  const user = (ctx.meta as { user?: { id?: unknown; entity_id?: unknown } | null }).user;
  const userEntity = typeof user?.entity_id === 'string' && user.entity_id ? user.entity_id : undefined;
  if (userEntity && entry.entity_id && entry.entity_id !== userEntity) {
    throw new Error(`recordActivity: entity '${entry.entity_id}' is not the calling user's entity`);
  }
  const entityId = userEntity ?? entry.entity_id;
  if (!entityId) throw new Error('recordActivity needs a user in ctx.meta or an explicit entity_id');
  const actor: ActivityActor = entry.actor ?? (userEntity && typeof user?.id === 'string' ? { type: 'user', id: user.id } : { type: 'system', id: ctx.service?.fullName ?? 'system' });
  const params: RecordActivityParams = { entity_id: entityId, workspace_id: entry.workspace_id, kind: entry.kind, summary: entry.summary, actor };
  if (entry.data !== undefined) params.data = entry.data;
  return params;
}
