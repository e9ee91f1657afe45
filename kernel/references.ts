import type { Context } from 'moleculer';
import { isNotFound } from './errors/not-found.ts';
import { assertWorkspaceOpen } from './workspace-state.ts';

export { isNotFound };

/**
 * Checks of references to records another package owns, asked through the broker (never by
 * reading its tables), answered as the field problems a 422 lists.
 */

export interface FieldProblem {
  field: string;
  message: string;
  type: string;
}

/**
 * null when `action` finds the record (then `check` may still object to it), a problem naming
 * `field` when it answers 404; any other failure is thrown.
 */
export async function referenceProblem<T>(ctx: Context, action: string, params: Record<string, unknown>, field: string, notFound: string, check?: (record: T) => string | null): Promise<FieldProblem | null> {
  let record: T;
  try {
    record = (await ctx.call(action, params)) as T;
  } catch (err) {
    if (isNotFound(err)) return { field, message: notFound, type: 'reference' };
    throw err;
  }
  const wrong = check?.(record) ?? null;
  return wrong === null ? null : { field, message: wrong, type: 'reference' };
}

/**
 * null when the workspace is the caller's, a problem naming `field` when it is not; an archived
 * one is refused outright (409 WORKSPACES_ERR_ARCHIVED, kernel/workspace-state.ts).
 */
export function workspaceProblem(ctx: Context, workspaceId: string, field = 'workspace_id'): Promise<FieldProblem | null> {
  return referenceProblem<{ id: string; archived_at?: string | null }>(ctx, 'workspaces.resolve', { workspace_id: workspaceId }, field, `No workspace with id '${workspaceId}' in your entity.`, (w) => {
    assertWorkspaceOpen(w);
    return null;
  });
}
