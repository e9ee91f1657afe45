import type { Context } from 'moleculer';
import { AGENTS_RESOLVE_ACTION, type AgentView } from '../../kernel/agents-contract.ts';
import { referenceProblem, workspaceProblem, type FieldProblem } from '../../kernel/references.ts';

export { workspaceProblem };

/** null when the agent is the caller's and works in that workspace (its own, or entity-wide). */
export function agentProblem(ctx: Context, agentId: string, workspaceId: string, field = 'agent_id'): Promise<FieldProblem | null> {
  return referenceProblem<AgentView>(ctx, AGENTS_RESOLVE_ACTION, { agent_id: agentId }, field, `No agent with id '${agentId}' in your entity.`, (agent) =>
    agent.workspace_id && agent.workspace_id !== workspaceId ? `Agent '${agentId}' belongs to another workspace.` : null,
  );
}
