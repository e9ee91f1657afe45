import type { Context } from 'moleculer';

/**
 * Checks of references to records another package owns, asked through the broker (never by
 * reading its tables), answered as the field problems a 422 lists.
 */

export interface FieldProblem {
  field: string;
  message: string;
  type: string;
}

/** Whether a broker call failed because the record is not the caller's entity's (or does not exist). */
export function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; type?: unknown };
  return e.code === 404 || e.type === 'NOT_FOUND';
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

/** null when the workspace is the caller's and open for new work (not archived), else what is wrong with it. */
export function workspaceProblem(ctx: Context, workspaceId: string, field = 'workspace_id'): Promise<FieldProblem | null> {
  return referenceProblem<{ archived_at?: string | null }>(ctx, 'workspaces.resolve', { workspace_id: workspaceId }, field, `No workspace with id '${workspaceId}' in your entity.`, (w) =>
    w?.archived_at ? `Workspace '${workspaceId}' is archived (read-only).` : null,
  );
}
