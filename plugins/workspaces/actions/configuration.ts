import { settingsActions } from './settings.ts';
import { applyOperatingModel, OPERATING_MODEL_PARAMS, OPERATING_MODEL_SCHEMA, readOperatingModel } from '../operating-model.ts';
import { applyGovernance, GOVERNANCE_PARAMS, GOVERNANCE_SCHEMA, readGovernance } from '../governance.ts';

/** `.../operating-model`: how the workspace's agents run (default agent and model, time zone, working hours, autonomy). */
export const operatingModel = settingsActions({
  column: 'operating_model',
  path: 'operating-model',
  label: 'operating model',
  read: readOperatingModel,
  apply: applyOperatingModel,
  params: OPERATING_MODEL_PARAMS,
  schema: OPERATING_MODEL_SCHEMA,
  description:
    'Runtime configuration. Defaults: default_agent_id null (none), default_model null (the platform default), timezone "UTC", working_hours null (any time), autonomy_level "supervised".',
});

/** `.../governance`: approval mode, allow/ask/deny rules per tool, budget and risk limits; owners and admins change it. */
export const governance = settingsActions({
  column: 'governance',
  path: 'governance',
  label: 'governance',
  read: readGovernance,
  apply: applyGovernance,
  params: GOVERNANCE_PARAMS,
  schema: GOVERNANCE_SCHEMA,
  writeRole: 'admin',
  description:
    'Approval mode (automatic, confirm_changes, risk_based, follow_default; default automatic), explicit rules [{ tool, decision: allow|ask|deny }] (default none), budget_limits { monthly_usd?, per_run_usd? }, risk_limits { max_risk_level?: low|medium|high } (default none) and unassigned_tasks (leave|master_agent: whether the workspace\'s master agent takes tasks created unassigned; default leave).',
});
