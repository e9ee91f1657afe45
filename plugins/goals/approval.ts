import type { Context } from 'moleculer';

/**
 * Whether a plan proposed in a workspace waits for a person. The workspace's configuration
 * belongs to the workspaces package, read through its actions: governance approval_mode
 * `confirm_changes` or `risk_based`, or operating-model autonomy_level `suggest` or
 * `supervised`, mean a person approves. `follow_default` follows the platform default,
 * `automatic` (no entity-level default exists yet).
 */
const GOVERNANCE_ACTION = 'workspaces.getGovernance';
const OPERATING_MODEL_ACTION = 'workspaces.getOperatingModel';

const APPROVING_MODES = new Set(['confirm_changes', 'risk_based']);
const APPROVING_AUTONOMY = new Set(['suggest', 'supervised']);

export async function planNeedsApproval(ctx: Context, workspaceId: string): Promise<boolean> {
  const [governance, operatingModel] = (await Promise.all([
    ctx.call(GOVERNANCE_ACTION, { workspace_id: workspaceId }),
    ctx.call(OPERATING_MODEL_ACTION, { workspace_id: workspaceId }),
  ])) as [{ approval_mode?: string }, { autonomy_level?: string }];
  return APPROVING_MODES.has(governance?.approval_mode ?? '') || APPROVING_AUTONOMY.has(operatingModel?.autonomy_level ?? '');
}
