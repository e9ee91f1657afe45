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

/** Emitted by plugins/agents after the write committed (payload AgentEventPayload). */
export const AGENT_CREATED_EVENT = 'agent.created';
export const AGENT_UPDATED_EVENT = 'agent.updated';
export const AGENT_DELETED_EVENT = 'agent.deleted';

export interface AgentEventPayload {
  entity_id: string;
  agent_id: string;
  workspace_id: string | null;
  /** the agent's version after the write (for agent.deleted: its last version) */
  version: number;
  /** agent.updated: the fields that changed (`is_master` alone when another agent became master) */
  fields?: string[];
  /** who did it: the calling user, or `{ type: 'system', id: 'workspace.deleted' }` for the cascade */
  actor: { type: 'user' | 'system'; id: string };
}

/**
 * Plans (served by plugins/goals): what an agent proposes to do, approved by a person or at once.
 *
 *   const plan = await ctx.call<PlanView, PlanProposeParams>(PLANS_PROPOSE_ACTION, { workspace_id, agent_id, summary, steps });
 *   if (plan.status === 'pending') park(run);   // resume on PLAN_APPROVED_EVENT / PLAN_REJECTED_EVENT for plan.id
 *   await ctx.call(PLANS_UPDATE_STEP_ACTION, { plan_id: plan.id, index: 0, status: 'done' });
 *
 * Both are internal (visibility 'public', no route), scoped by `ctx.meta.user.entity_id`. A plan
 * needs approval (status `pending`, `requires_approval: true`) when the workspace's governance
 * approval_mode is `confirm_changes` or `risk_based`, or its operating model's autonomy_level is
 * `suggest` or `supervised`; otherwise it is approved at once (`decided_by: null`). A newer
 * proposal for the same goal or task supersedes the older pending ones (PLAN_SUPERSEDED_EVENT).
 */
export const PLANS_PROPOSE_ACTION = 'plans.propose';
export const PLANS_UPDATE_STEP_ACTION = 'plans.updateStep';

export const PLAN_STATUSES = ['pending', 'approved', 'rejected', 'superseded', 'completed'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];
export const PLAN_STEP_STATUSES = ['pending', 'in_progress', 'done', 'skipped'] as const;
export type PlanStepStatus = (typeof PLAN_STEP_STATUSES)[number];

/** Bounds of a plan (422 beyond them). */
export const PLAN_MAX_STEPS = 100;
export const PLAN_SUMMARY_MAX = 10_000;

export interface PlanStep {
  title: string;
  detail: string | null;
  status: PlanStepStatus;
}

export interface PlanProposeParams {
  workspace_id: string;
  goal_id?: string | null;
  task_id?: string | null;
  /** must be an agent of the workspace or an entity-wide one */
  agent_id: string;
  run_id?: string | null;
  summary: string;
  /** 1 to PLAN_MAX_STEPS; `status` defaults to pending, `detail` to null */
  steps: { title: string; detail?: string | null; status?: PlanStepStatus }[];
}

export interface PlanUpdateStepParams {
  plan_id: string;
  /** 0-based index into `steps` */
  index: number;
  status: PlanStepStatus;
}

export interface PlanView {
  id: string;
  entity_id: string;
  workspace_id: string;
  goal_id: string | null;
  task_id: string | null;
  agent_id: string;
  run_id: string | null;
  summary: string;
  steps: PlanStep[];
  status: PlanStatus;
  requires_approval: boolean;
  /** the user who approved or rejected it; null while pending and for an automatic approval */
  decided_by: string | null;
  decided_at: string | null;
  decision_comment: string | null;
  /** the user the proposing run acts for */
  created_by: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Emitted by plugins/goals after the write committed (payload PlanEventPayload). */
export const PLAN_PROPOSED_EVENT = 'plan.proposed';
/** also emitted for a plan approved at once on proposal (`automatic: true`) */
export const PLAN_APPROVED_EVENT = 'plan.approved';
export const PLAN_REJECTED_EVENT = 'plan.rejected';
export const PLAN_SUPERSEDED_EVENT = 'plan.superseded';
/** every step is done or skipped */
export const PLAN_COMPLETED_EVENT = 'plan.completed';

export interface PlanEventPayload {
  entity_id: string;
  workspace_id: string;
  plan_id: string;
  goal_id: string | null;
  task_id: string | null;
  agent_id: string;
  run_id: string | null;
  status: PlanStatus;
  decided_by: string | null;
  /** true when no person decided (approved at once on proposal) */
  automatic: boolean;
  /** the decision's comment, on approved and rejected */
  comment?: string | null;
}
