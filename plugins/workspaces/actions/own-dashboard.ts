import type { Context } from 'moleculer';
import { WORKSPACE_DASHBOARD_PARAMS, type WorkspaceDashboardParams } from '../../../kernel/workspace-contracts.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import type { WorkspacesAction } from '../lookup.ts';
import { activityView } from '../views.ts';

const RECENT = 5;

/** This package's own dashboard contribution: the latest activity entries and how many there are. */
export const workspaceDashboard: WorkspacesAction = {
  visibility: 'public',
  params: WORKSPACE_DASHBOARD_PARAMS,
  async handler(ctx: Context<WorkspaceDashboardParams>) {
    const { entity_id, workspace_id } = ctx.params;
    const page = await tenantRepo(this.models.Activity, 'activity entry').page(entity_id, {
      where: { workspace_id },
      order: [['created_at', 'DESC'], ['id', 'DESC']],
      limit: RECENT,
      offset: 0,
    });
    return { activity_total: page.total, recent_activity: page.items.map(activityView) };
  },
};
