/**
 * A workspace's approval and rule configuration (the "Policy" of a blueprint), as stored by the
 * workspaces package and read by tool policy (kernel/tools/policy.ts). Approval modes are the
 * blueprint install presets: automatic (default), confirm_changes, risk_based, follow_default
 * (the entity's default). Explicit rules, budget and risk limits apply whatever the mode.
 */
export interface Governance {
  approval_mode: ApprovalMode;
  /** explicit decisions per tool (or per risk level, `risk:<level>`), at most one rule per tool */
  rules: GovernanceRule[];
  budget_limits: { monthly_usd?: number; per_run_usd?: number };
  risk_limits: { max_risk_level?: RiskLevel };
  /** who takes a task created with no assignee: nobody until assigned, or the workspace's master agent */
  unassigned_tasks: UnassignedTasks;
}

export const APPROVAL_MODES = ['automatic', 'confirm_changes', 'risk_based', 'follow_default'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];
export const RULE_DECISIONS = ['allow', 'ask', 'deny'] as const;
export type RuleDecision = (typeof RULE_DECISIONS)[number];
export const UNASSIGNED_TASKS = ['leave', 'master_agent'] as const;
export type UnassignedTasks = (typeof UNASSIGNED_TASKS)[number];
export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export interface GovernanceRule {
  /** a tool name, or `risk:low` / `risk:medium` / `risk:high` for every tool of that risk */
  tool: string;
  decision: RuleDecision;
}

export const GOVERNANCE_DEFAULTS: Governance = { approval_mode: 'automatic', rules: [], budget_limits: {}, risk_limits: {}, unassigned_tasks: 'leave' };

/** The stored value with the defaults filled in (unknown stored keys are dropped). */
export function readGovernance(stored: Record<string, unknown> | null | undefined): Governance {
  const governance = structuredClone(GOVERNANCE_DEFAULTS) as unknown as Record<string, unknown>;
  for (const key of Object.keys(GOVERNANCE_DEFAULTS)) if (stored && key in stored) governance[key] = stored[key];
  return governance as unknown as Governance;
}
