import { RISK_LEVELS, type Governance, type RiskLevel } from '../governance.ts';
import type { ToolDeclaration, ToolDecision, ToolPolicyVerdict } from '../tools-contract.ts';

/** A channel contact's role in a conversation (null/absent: not a channel conversation). */
export const CONTACT_ROLES = ['external', 'member', 'admin'] as const;
export type ContactRole = (typeof CONTACT_ROLES)[number];

export interface ToolPolicyInput {
  tool: Pick<ToolDeclaration, 'name' | 'risk' | 'side_effect'>;
  /** the names of the tools bound to the agent */
  bound: readonly string[];
  /** the workspace's governance (kernel/governance.ts readGovernance fills the defaults) */
  governance: Governance;
  contact_role?: ContactRole | null;
}

const STRENGTH: Record<ToolDecision, number> = { allow: 0, ask: 1, deny: 2 };

function rank(risk: string): number {
  return RISK_LEVELS.indexOf(risk as RiskLevel);
}

/** The strongest verdict (deny beats ask beats allow); of equal ones, the first (the order below). */
function strongest(verdicts: ToolPolicyVerdict[]): ToolPolicyVerdict {
  return verdicts.reduce((best, v) => (STRENGTH[v.decision] > STRENGTH[best.decision] ? v : best));
}

/** What the workspace's rules say: a rule naming the tool, else a `risk:<level>` rule, else nothing. */
function ruleVerdict(input: ToolPolicyInput): ToolPolicyVerdict | undefined {
  const rules = Array.isArray(input.governance.rules) ? input.governance.rules : [];
  const byName = rules.find((r) => r.tool === input.tool.name);
  if (byName) return { decision: byName.decision, reason: `governance rule for '${input.tool.name}': ${byName.decision}` };
  const byRisk = rules.find((r) => r.tool === `risk:${input.tool.risk}`);
  if (byRisk) return { decision: byRisk.decision, reason: `governance rule for risk ${input.tool.risk}: ${byRisk.decision}` };
  return undefined;
}

/** With no rule, what the approval mode says. */
function modeVerdict(input: ToolPolicyInput): ToolPolicyVerdict {
  const { risk, side_effect } = input.tool;
  switch (input.governance.approval_mode) {
    case 'confirm_changes':
      return side_effect === 'none'
        ? { decision: 'allow', reason: 'approval mode confirm_changes: the tool changes nothing' }
        : { decision: 'ask', reason: `approval mode confirm_changes: the tool has side effect ${side_effect}` };
    case 'risk_based':
      if (risk === 'high') return { decision: 'ask', reason: 'approval mode risk_based: high risk' };
      if (risk === 'medium' && side_effect === 'non_idempotent') return { decision: 'ask', reason: 'approval mode risk_based: medium risk, not idempotent' };
      return { decision: 'allow', reason: `approval mode risk_based: ${risk} risk, side effect ${side_effect}` };
    case 'follow_default':
      return { decision: 'allow', reason: 'approval mode follow_default: the entity has no default stored, so automatic applies' };
    case 'automatic':
      return { decision: 'allow', reason: 'approval mode automatic' };
    default:
      return { decision: 'ask', reason: `approval mode '${String(input.governance.approval_mode)}' is unknown: asking` };
  }
}

/** What the channel contact's role permits (it only narrows). */
function roleVerdict(input: ToolPolicyInput): ToolPolicyVerdict | undefined {
  const role = input.contact_role;
  if (role === null || role === undefined || role === 'admin') return undefined;
  const { risk, side_effect } = input.tool;
  if (role === 'member') return rank(risk) > rank('medium') ? { decision: 'deny', reason: `contact role member: ${risk} risk tools are not available` } : undefined;
  if (role === 'external') {
    return risk === 'low' && side_effect === 'none' ? undefined : { decision: 'deny', reason: 'contact role external: only low-risk tools without side effects are available' };
  }
  return { decision: 'deny', reason: `contact role '${String(role)}' is unknown: denied` };
}

/**
 * Whether the agent may call this tool now: allow, ask (a person approves the invocation
 * first) or deny. Pure. The rules (kernel/tools/README.md "Policy"): a tool not bound to the
 * agent is denied; a tool above `risk_limits.max_risk_level` is denied; the channel contact's
 * role narrows (external: low risk without side effects only; member: up to medium); a
 * governance rule naming the tool, else one for its risk level (`risk:<level>`), decides;
 * without one the approval mode does. Of several verdicts the strongest wins: deny, ask, allow.
 */
export function decideTool(input: ToolPolicyInput): ToolPolicyVerdict {
  const { tool } = input;
  if (!input.bound.includes(tool.name)) return { decision: 'deny', reason: 'not bound to the agent' };
  if (rank(tool.risk) < 0) return { decision: 'deny', reason: `risk '${String(tool.risk)}' is unknown` };
  const verdicts: ToolPolicyVerdict[] = [];
  const max = input.governance.risk_limits?.max_risk_level;
  if (max !== undefined && rank(tool.risk) > rank(max)) verdicts.push({ decision: 'deny', reason: `risk limit: ${tool.risk} > ${max}` });
  const role = roleVerdict(input);
  if (role) verdicts.push(role);
  verdicts.push(ruleVerdict(input) ?? modeVerdict(input));
  return strongest(verdicts);
}

/** decideTool for each tool (e.g. to tell the model only the tools it may call), by tool name. */
export function decideTools(tools: readonly ToolPolicyInput['tool'][], rest: Omit<ToolPolicyInput, 'tool'>): Map<string, ToolPolicyVerdict> {
  return new Map(tools.map((tool) => [tool.name, decideTool({ ...rest, tool })]));
}
