import type { Context } from 'moleculer';
import { referenceProblem, workspaceProblem, type FieldProblem } from '../../kernel/references.ts';

/** null when the model provider key is one of the caller's entity. */
export function apiKeyProblem(ctx: Context, keyId: string, field = 'api_key_id'): Promise<FieldProblem | null> {
  return referenceProblem(ctx, 'models.get', { id: keyId }, field, `No model provider key with id '${keyId}' in your entity.`);
}

/** Problems with the references a write sets (only those it changes are asked about). */
export async function referenceProblems(ctx: Context, changed: { workspace_id?: string | null; api_key_id?: string | null }): Promise<FieldProblem[]> {
  const checks: Promise<FieldProblem | null>[] = [];
  if (changed.workspace_id) checks.push(workspaceProblem(ctx, changed.workspace_id));
  if (changed.api_key_id) checks.push(apiKeyProblem(ctx, changed.api_key_id));
  return (await Promise.all(checks)).filter((p): p is FieldProblem => p !== null);
}
