import test from 'ava';
import { GOVERNANCE_DEFAULTS, readGovernance, type Governance } from '../kernel/governance.ts';
import { decideTool, decideTools, type ToolPolicyInput } from '../kernel/tools/policy.ts';
import type { ToolRisk, ToolSideEffect } from '../kernel/tools-contract.ts';

const tool = (name: string, risk: ToolRisk, side_effect: ToolSideEffect) => ({ name, risk, side_effect });
const READER = tool('reader', 'low', 'none');
const FILES = tool('files', 'medium', 'idempotent');
const HTTP = tool('http', 'medium', 'non_idempotent');
const SHELL = tool('shell', 'high', 'non_idempotent');
const ALL = [READER, FILES, HTTP, SHELL];
const BOUND = ALL.map((t) => t.name);

function gov(over: Partial<Governance> = {}): Governance {
  return { ...structuredClone(GOVERNANCE_DEFAULTS), ...over };
}
function decide(t: ToolPolicyInput['tool'], over: Partial<Omit<ToolPolicyInput, 'tool'>> = {}) {
  return decideTool({ tool: t, bound: BOUND, governance: gov(), ...over });
}
function decisions(over: Partial<Omit<ToolPolicyInput, 'tool'>>): Record<string, string> {
  return Object.fromEntries(ALL.map((t) => [t.name, decide(t, over).decision]));
}

test('a tool not bound to the agent is denied, whatever governance says', (t) => {
  const v = decideTool({ tool: READER, bound: ['files'], governance: gov({ rules: [{ tool: 'reader', decision: 'allow' }] }) });
  t.deepEqual(v, { decision: 'deny', reason: 'not bound to the agent' });
  t.is(decideTool({ tool: READER, bound: [], governance: gov() }).decision, 'deny');
});

test('approval mode automatic allows every bound tool', (t) => {
  t.deepEqual(decisions({}), { reader: 'allow', files: 'allow', http: 'allow', shell: 'allow' });
  t.is(decide(SHELL).reason, 'approval mode automatic');
});

test('approval mode confirm_changes asks for every tool with a side effect', (t) => {
  t.deepEqual(decisions({ governance: gov({ approval_mode: 'confirm_changes' }) }), { reader: 'allow', files: 'ask', http: 'ask', shell: 'ask' });
});

test('approval mode risk_based asks for high risk and for medium non-idempotent tools', (t) => {
  t.deepEqual(decisions({ governance: gov({ approval_mode: 'risk_based' }) }), { reader: 'allow', files: 'allow', http: 'ask', shell: 'ask' });
  t.is(decide(tool('low_writer', 'low', 'non_idempotent'), { bound: ['low_writer'], governance: gov({ approval_mode: 'risk_based' }) }).decision, 'allow');
  t.is(decide(tool('high_reader', 'high', 'none'), { bound: ['high_reader'], governance: gov({ approval_mode: 'risk_based' }) }).decision, 'ask');
});

test('approval mode follow_default behaves as automatic and says so', (t) => {
  t.deepEqual(decisions({ governance: gov({ approval_mode: 'follow_default' }) }), { reader: 'allow', files: 'allow', http: 'allow', shell: 'allow' });
  t.regex(decide(SHELL, { governance: gov({ approval_mode: 'follow_default' }) }).reason, /no default stored.*automatic/);
});

test('a rule naming the tool decides instead of the approval mode', (t) => {
  const g = gov({ approval_mode: 'confirm_changes', rules: [{ tool: 'http', decision: 'allow' }, { tool: 'reader', decision: 'ask' }, { tool: 'files', decision: 'deny' }] });
  t.deepEqual(decisions({ governance: g }), { reader: 'ask', files: 'deny', http: 'allow', shell: 'ask' });
  t.is(decide(HTTP, { governance: g }).reason, "governance rule for 'http': allow");
});

test('a risk:<level> rule applies to every tool of that risk; a tool-name rule beats it', (t) => {
  const g = gov({ rules: [{ tool: 'risk:medium', decision: 'ask' }, { tool: 'risk:high', decision: 'deny' }, { tool: 'files', decision: 'allow' }] });
  t.deepEqual(decisions({ governance: g }), { reader: 'allow', files: 'allow', http: 'ask', shell: 'deny' });
  t.is(decide(HTTP, { governance: g }).reason, 'governance rule for risk medium: ask');
  // a name rule that is stricter than the risk rule also wins
  const stricter = gov({ rules: [{ tool: 'risk:low', decision: 'allow' }, { tool: 'reader', decision: 'deny' }] });
  t.is(decide(READER, { governance: stricter }).decision, 'deny');
});

test('a rule for an unknown risk level or another tool does not apply', (t) => {
  const g = gov({ approval_mode: 'risk_based', rules: [{ tool: 'risk:critical', decision: 'deny' }, { tool: 'other', decision: 'deny' }, { tool: 'RISK:HIGH', decision: 'allow' }] });
  t.deepEqual(decisions({ governance: g }), { reader: 'allow', files: 'allow', http: 'ask', shell: 'ask' });
});

test('max_risk_level denies a tool above it whatever a rule says', (t) => {
  const g = gov({ risk_limits: { max_risk_level: 'medium' }, rules: [{ tool: 'shell', decision: 'allow' }, { tool: 'risk:high', decision: 'allow' }] });
  t.deepEqual(decisions({ governance: g }), { reader: 'allow', files: 'allow', http: 'allow', shell: 'deny' });
  t.is(decide(SHELL, { governance: g }).reason, 'risk limit: high > medium');
  t.deepEqual(decisions({ governance: gov({ risk_limits: { max_risk_level: 'low' } }) }), { reader: 'allow', files: 'deny', http: 'deny', shell: 'deny' });
  t.deepEqual(decisions({ governance: gov({ risk_limits: { max_risk_level: 'high' } }) }), { reader: 'allow', files: 'allow', http: 'allow', shell: 'allow' });
});

test('contact role external: only low risk without side effects, the rest denied', (t) => {
  t.deepEqual(decisions({ contact_role: 'external' }), { reader: 'allow', files: 'deny', http: 'deny', shell: 'deny' });
  t.is(decide(tool('low_writer', 'low', 'idempotent'), { bound: ['low_writer'], contact_role: 'external' }).decision, 'deny');
  t.regex(decide(FILES, { contact_role: 'external' }).reason, /contact role external/);
});

test('contact role member: up to medium risk', (t) => {
  t.deepEqual(decisions({ contact_role: 'member' }), { reader: 'allow', files: 'allow', http: 'allow', shell: 'deny' });
});

test('contact role admin, null or absent: no restriction', (t) => {
  for (const contact_role of ['admin', null, undefined] as const) {
    t.deepEqual(decisions({ contact_role }), { reader: 'allow', files: 'allow', http: 'allow', shell: 'allow' });
  }
});

test('the contact role only narrows: an allow rule does not widen it, and its deny beats a rule', (t) => {
  const g = gov({ rules: [{ tool: 'shell', decision: 'allow' }, { tool: 'files', decision: 'allow' }] });
  t.deepEqual(decisions({ governance: g, contact_role: 'external' }), { reader: 'allow', files: 'deny', http: 'deny', shell: 'deny' });
  t.deepEqual(decisions({ governance: g, contact_role: 'member' }), { reader: 'allow', files: 'allow', http: 'allow', shell: 'deny' });
});

test('deny beats ask beats allow when several apply', (t) => {
  // ask from the rule, deny from the role: deny
  t.is(decide(SHELL, { governance: gov({ rules: [{ tool: 'shell', decision: 'ask' }] }), contact_role: 'member' }).decision, 'deny');
  // ask from the mode and no deny: ask
  t.is(decide(HTTP, { governance: gov({ approval_mode: 'risk_based' }), contact_role: 'member' }).decision, 'ask');
  // ask from a rule beats allow from the role and the limit
  t.is(decide(READER, { governance: gov({ rules: [{ tool: 'reader', decision: 'ask' }], risk_limits: { max_risk_level: 'high' } }), contact_role: 'external' }).decision, 'ask');
});

test('unknown values fail closed', (t) => {
  t.is(decide(tool('odd', 'extreme' as ToolRisk, 'none'), { bound: ['odd'] }).decision, 'deny');
  t.is(decide(READER, { contact_role: 'guest' as never }).decision, 'deny');
  t.is(decide(READER, { governance: gov({ approval_mode: 'mystery' as never }) }).decision, 'ask');
});

test('readGovernance of a stored value fills the defaults; decideTools decides each tool', (t) => {
  const g = readGovernance({ approval_mode: 'confirm_changes', extra: true });
  t.deepEqual(g, { approval_mode: 'confirm_changes', rules: [], budget_limits: {}, risk_limits: {}, unassigned_tasks: 'leave' });
  const map = decideTools(ALL, { bound: ['reader', 'http'], governance: g });
  t.deepEqual(Object.fromEntries([...map].map(([k, v]) => [k, v.decision])), { reader: 'allow', files: 'deny', http: 'ask', shell: 'deny' });
});
