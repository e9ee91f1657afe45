import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { APPROVAL_MODES, RISK_LEVELS, RULE_DECISIONS, UNASSIGNED_TASKS, type Governance } from '../../kernel/governance.ts';

// the types and constants live in the kernel (policy code reads them without importing this package)
export { APPROVAL_MODES, GOVERNANCE_DEFAULTS, readGovernance, RISK_LEVELS, RULE_DECISIONS, UNASSIGNED_TASKS } from '../../kernel/governance.ts';
export type { ApprovalMode, Governance, GovernanceRule, RiskLevel } from '../../kernel/governance.ts';

const usd = { type: 'number', min: 0, max: 1_000_000_000, convert: false, optional: true } as const;

/** fastest-validator params of `PUT .../governance` (every key optional: the ones given replace). */
export const GOVERNANCE_PARAMS = {
  approval_mode: { type: 'enum', values: [...APPROVAL_MODES], optional: true },
  rules: {
    type: 'array',
    max: 500,
    optional: true,
    items: {
      type: 'object',
      strict: true,
      props: { tool: { type: 'string', trim: true, min: 1, max: 200 }, decision: { type: 'enum', values: [...RULE_DECISIONS] } },
    },
  },
  budget_limits: { type: 'object', strict: true, optional: true, props: { monthly_usd: usd, per_run_usd: usd } },
  risk_limits: { type: 'object', strict: true, optional: true, props: { max_risk_level: { type: 'enum', values: [...RISK_LEVELS], optional: true } } },
  unassigned_tasks: { type: 'enum', values: [...UNASSIGNED_TASKS], optional: true },
} as const;

export const GOVERNANCE_SCHEMA = {
  type: 'object',
  properties: {
    approval_mode: { type: 'string', enum: [...APPROVAL_MODES] },
    rules: {
      type: 'array',
      items: { type: 'object', properties: { tool: { type: 'string' }, decision: { type: 'string', enum: [...RULE_DECISIONS] } }, required: ['tool', 'decision'] },
    },
    budget_limits: { type: 'object', properties: { monthly_usd: { type: 'number', minimum: 0 }, per_run_usd: { type: 'number', minimum: 0 } } },
    risk_limits: { type: 'object', properties: { max_risk_level: { type: 'string', enum: [...RISK_LEVELS] } } },
    unassigned_tasks: {
      type: 'string',
      enum: [...UNASSIGNED_TASKS],
      description: "Who takes a task created in this workspace with no assignee: 'leave' (nobody until assigned; the default) or 'master_agent' (the workspace's master agent runs on it at once).",
    },
  },
  required: ['approval_mode', 'rules', 'budget_limits', 'risk_limits', 'unassigned_tasks'],
};

/** The governance after applying a request; 422 naming the field for what the params cannot check. */
export function applyGovernance(current: Governance, requested: Partial<Governance>): Governance {
  const next = { ...current } as Record<string, unknown>;
  for (const [key, value] of Object.entries(requested)) if (value !== undefined) next[key] = value;
  const result = next as unknown as Governance;
  const problems: { field: string; message: string; type: string }[] = [];
  const seen = new Map<string, number>();
  result.rules.forEach((rule, index) => {
    const first = seen.get(rule.tool);
    if (first !== undefined) problems.push({ field: `rules[${index}].tool`, message: `The tool '${rule.tool}' already has a rule (rules[${first}]).`, type: 'duplicateRule' });
    else seen.set(rule.tool, index);
  });
  const { monthly_usd, per_run_usd } = result.budget_limits;
  if (monthly_usd !== undefined && per_run_usd !== undefined && per_run_usd > monthly_usd) {
    problems.push({ field: 'budget_limits.per_run_usd', message: 'The per-run budget cannot be larger than the monthly budget.', type: 'budget' });
  }
  if (problems.length) throw ERRORS.VALIDATION_FAILED('The governance configuration is not valid.', problems);
  return result;
}
