/**
 * What any package may do with workspaces without importing the workspaces package:
 * contribute to a workspace's dashboard, and clean up when a workspace is deleted.
 * (Writing to a workspace's activity log goes through `recordActivity` in `activity.ts`.)
 *
 * Dashboard contributions. Any service may publish an action named `workspaceDashboard`
 * (visibility 'public', no `rest`) taking `{ entity_id, workspace_id }` and returning a
 * small JSON object about that workspace (e.g. task counts per board column, active agents,
 * enabled jobs, recent runs). `GET /api/v1/workspaces/{workspace_id}` reads the registry on
 * every request, so a hot-loaded package contributes at once; it calls every contributor in
 * parallel with a timeout of WORKSPACE_DASHBOARD_TIMEOUT_MS and puts each result under the
 * contributing service's name in `dashboard`. A contributor that fails or times out shows as
 * `{ error: "..." }` there; the request itself still succeeds. A contributor must answer only
 * from rows of `entity_id` (the caller's entity, already checked to own the workspace).
 *
 *   actions: {
 *     workspaceDashboard: {
 *       visibility: 'public',
 *       params: WORKSPACE_DASHBOARD_PARAMS,
 *       handler: async (ctx) => ({ open_tasks: await countOpen(ctx.params.entity_id, ctx.params.workspace_id) }),
 *     },
 *   }
 *
 * Deletion cascade. Deleting an archived workspace removes its row and emits the event
 * WORKSPACE_DELETED_EVENT with `{ entity_id, workspace_id }` (emitted, so one instance of each
 * listening service receives it). Every package that keeps rows per workspace listens and
 * deletes its rows of that workspace and entity. The event is sent once, after the workspace
 * row is gone: a handler must be idempotent, and a package not running at that moment keeps
 * orphaned rows that it may sweep later (no workspace with that id exists any more).
 */

export const WORKSPACE_DASHBOARD_ACTION = 'workspaceDashboard';

/** How long the dashboard waits for each contributor before reporting it as failed. */
export const WORKSPACE_DASHBOARD_TIMEOUT_MS = 2000;

export interface WorkspaceDashboardParams {
  entity_id: string;
  workspace_id: string;
}

/** `params` for a `workspaceDashboard` action (fastest-validator). */
export const WORKSPACE_DASHBOARD_PARAMS = {
  $$strict: true,
  entity_id: { type: 'string', min: 1, max: 64 },
  workspace_id: { type: 'string', min: 1, max: 64 },
} as const;

export const WORKSPACE_DELETED_EVENT = 'workspace.deleted';

export interface WorkspaceDeletedPayload {
  entity_id: string;
  workspace_id: string;
}
