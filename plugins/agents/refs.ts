import type { Context } from 'moleculer';
import type { FieldProblem } from './fields.ts';

/**
 * The records an agent refers to belong to other packages, asked through the broker (never by
 * reading their tables): the workspace (workspaces package) and the model key (models package).
 */
const WORKSPACE_READ_ACTION = 'workspaces.resolve';
const KEY_READ_ACTION = 'models.get';

function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; type?: unknown };
  return e.code === 404 || e.type === 'NOT_FOUND';
}

/** null when the workspace is the caller's and not archived, else what is wrong with it. */
export async function workspaceProblem(ctx: Context, workspaceId: string, field = 'workspace_id'): Promise<FieldProblem | null> {
  try {
    const workspace = (await ctx.call(WORKSPACE_READ_ACTION, { workspace_id: workspaceId })) as { archived_at?: string | null };
    if (workspace?.archived_at) return { field, message: `Workspace '${workspaceId}' is archived (read-only).`, type: 'reference' };
    return null;
  } catch (err) {
    if (isNotFound(err)) return { field, message: `No workspace with id '${workspaceId}' in your entity.`, type: 'reference' };
    throw err;
  }
}

/** null when the model provider key is one of the caller's entity. */
export async function apiKeyProblem(ctx: Context, keyId: string, field = 'api_key_id'): Promise<FieldProblem | null> {
  try {
    await ctx.call(KEY_READ_ACTION, { id: keyId });
    return null;
  } catch (err) {
    if (isNotFound(err)) return { field, message: `No model provider key with id '${keyId}' in your entity.`, type: 'reference' };
    throw err;
  }
}

/** Problems with the references a write sets (only those it changes are asked about). */
export async function referenceProblems(ctx: Context, changed: { workspace_id?: string | null; api_key_id?: string | null }): Promise<FieldProblem[]> {
  const checks: Promise<FieldProblem | null>[] = [];
  if (changed.workspace_id) checks.push(workspaceProblem(ctx, changed.workspace_id));
  if (changed.api_key_id) checks.push(apiKeyProblem(ctx, changed.api_key_id));
  return (await Promise.all(checks)).filter((p): p is FieldProblem => p !== null);
}
