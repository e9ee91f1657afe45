/**
 * Agents as other packages see them (served by plugins/agents), without importing that package.
 *
 *   const agent = await ctx.call<AgentView>(AGENTS_RESOLVE_ACTION, { agent_id });        // 404 if not the caller's entity's
 *   const master = await ctx.call<AgentView | null>(AGENTS_MASTER_ACTION, { workspace_id });
 *
 * Both are internal (visibility 'public', no route) and scoped by `ctx.meta.user.entity_id`.
 */

export const AGENTS_RESOLVE_ACTION = 'agents.resolve';
export const AGENTS_MASTER_ACTION = 'agents.master';

/** Round cap bounds: a run stops with reason `round_cap` after this many model turns. */
export const AGENT_DEFAULT_MAX_ROUNDS = 10;
export const AGENT_MAX_ROUNDS_LIMIT = 100;

export interface AgentView {
  id: string;
  entity_id: string;
  /** null: entity-wide (usable in every workspace) */
  workspace_id: string | null;
  name: string;
  description: string;
  /** the system prompt */
  instructions: string;
  /** null: the entity's default model provider key */
  api_key_id: string | null;
  /** null: the key's default model */
  model: string | null;
  /** names of bound tools (kernel/tools-contract.ts); the allowed set of a call is these ∩ policy */
  tools: string[];
  max_rounds: number;
  /** the workspace's master agent takes tasks created unassigned (when governance says so) */
  is_master: boolean;
  status: 'active' | 'disabled';
  version: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}
