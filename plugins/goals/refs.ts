import type { Context } from 'moleculer';
import { AGENTS_RESOLVE_ACTION, type AgentView } from '../../kernel/agents-contract.ts';
import type { FieldProblem } from './errors.ts';

/**
 * The workspace and the agent a goal or plan refers to belong to other packages, asked through
 * the broker (never by reading their tables).
 */
const WORKSPACE_READ_ACTION = 'workspaces.resolve';

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

/** null when the agent is the caller's and works in that workspace (its own, or entity-wide). */
export async function agentProblem(ctx: Context, agentId: string, workspaceId: string, field = 'agent_id'): Promise<FieldProblem | null> {
  try {
    const agent = (await ctx.call(AGENTS_RESOLVE_ACTION, { agent_id: agentId })) as AgentView;
    if (agent.workspace_id && agent.workspace_id !== workspaceId) return { field, message: `Agent '${agentId}' belongs to another workspace.`, type: 'reference' };
    return null;
  } catch (err) {
    if (isNotFound(err)) return { field, message: `No agent with id '${agentId}' in your entity.`, type: 'reference' };
    throw err;
  }
}
