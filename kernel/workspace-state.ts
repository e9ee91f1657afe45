import type { Context, Middleware, Service } from 'moleculer';
import { defineError, type KernelError } from './errors/define.ts';
import { isNotFound } from './errors/not-found.ts';

/**
 * An archived workspace is read-only: no write lands in it (its tasks, bindings, runs, ...)
 * until it is deleted for good. This is the one check, and the one answer: 409
 * WORKSPACES_ERR_ARCHIVED naming the workspace and its state.
 *
 * How a write action adopts it (docs/roles.md):
 * - it acts on a record of a workspace: declare `workspaceOf` on the action, a function that
 *   names the workspace(s) the call writes into; the kernel checks them after validation and
 *   before the handler, on whatever node serves the action, for HTTP and internal callers alike;
 * - it names a workspace to write into (a create, a move to another workspace): resolve it with
 *   `openWorkspace`, or `workspaceProblem` (kernel/references.ts), which refuse an archived one.
 */

export const WORKSPACES_ERR_ARCHIVED = defineError({ code: 'WORKSPACES_ERR_ARCHIVED', status: 409, title: 'The workspace is archived' });

/** The internal action of the workspaces package that tells a workspace's state (any caller, entity given). */
export const WORKSPACE_STATE_ACTION = 'workspaces.state';

export type WorkspaceState = 'active' | 'paused' | 'archived';

/** What WORKSPACE_STATE_ACTION answers. */
export interface WorkspaceStateView {
  workspace_id: string;
  state: WorkspaceState;
}

/** The workspaces a call writes into; a null or undefined id (a record outside any workspace) is skipped. */
export interface WorkspaceTarget {
  entity_id: string;
  workspace_ids: (string | null | undefined)[];
}

/** The `workspaceOf` declaration of a write action; null when the call writes into no workspace. */
export type WorkspaceOf = (ctx: Context, service: Service) => Promise<WorkspaceTarget | null> | WorkspaceTarget | null;

/** The state of a workspace view (`workspaces.resolve` or `workspaces.state`). */
export function stateOf(view: { state?: unknown; status?: unknown; archived_at?: unknown }): WorkspaceState {
  if (view.state === 'archived' || view.archived_at) return 'archived';
  return view.status === 'paused' || view.state === 'paused' ? 'paused' : 'active';
}

export function workspaceArchived(workspaceId: string): KernelError {
  return WORKSPACES_ERR_ARCHIVED(`Workspace '${workspaceId}' is archived and read-only; DELETE it again to remove it for good.`, {
    workspace_id: workspaceId,
    workspace_state: 'archived',
  });
}

/** The one check: 409 for a workspace whose state is archived. */
export function assertWorkspaceOpen(view: { id?: string; workspace_id?: string; state?: unknown; status?: unknown; archived_at?: unknown }): void {
  if (stateOf(view) === 'archived') throw workspaceArchived(String(view.workspace_id ?? view.id));
}

/** The caller's workspace (`workspaces.resolve`: 404 when not theirs), refused when archived. */
export async function openWorkspace<T extends { id: string; archived_at?: string | null }>(ctx: Context, workspaceId: string): Promise<T> {
  const view = (await ctx.call('workspaces.resolve', { workspace_id: workspaceId })) as T;
  assertWorkspaceOpen(view);
  return view;
}

/**
 * Refuses the call when a workspace it writes into is archived. A workspace that is not found
 * is left to the action (its own 404 or 422 names it).
 */
export async function assertTargetOpen(ctx: Pick<Context, 'call'>, target: WorkspaceTarget | null): Promise<void> {
  if (!target) return;
  const ids = [...new Set(target.workspace_ids.filter((id): id is string => typeof id === 'string' && id.length > 0))];
  for (const workspaceId of ids) {
    let view: WorkspaceStateView;
    try {
      view = (await ctx.call(WORKSPACE_STATE_ACTION, { entity_id: target.entity_id, workspace_id: workspaceId })) as WorkspaceStateView;
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    assertWorkspaceOpen(view);
  }
}

/** Whether the workspace is archived, for work that skips such a workspace instead of failing (events routed to bindings). */
export async function isArchived(caller: Pick<Context, 'call'>, entityId: string, workspaceId: string | null): Promise<boolean> {
  try {
    await assertTargetOpen(caller, { entity_id: entityId, workspace_ids: [workspaceId] });
    return false;
  } catch (err) {
    if (WORKSPACES_ERR_ARCHIVED.is(err)) return true;
    throw err;
  }
}

/** The broker middleware that enforces `workspaceOf`; it must sit inside the Validator (see moleculer.config.ts). */
export function workspaceWriteGuard(): Middleware {
  return {
    name: 'WorkspaceWriteGuard',
    localAction(next: (ctx: Context) => Promise<unknown>, action: { workspaceOf?: unknown; service?: Service }) {
      const workspaceOf = action.workspaceOf;
      if (typeof workspaceOf !== 'function') return next;
      return async function guarded(ctx: Context) {
        await assertTargetOpen(ctx, await (workspaceOf as WorkspaceOf)(ctx, action.service as Service));
        return next(ctx);
      };
    },
  } as unknown as Middleware;
}
