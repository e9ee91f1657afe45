import type { ServiceSchema } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { defineWorkspaceModels } from './model.ts';
import { CollectionCache } from '../../kernel/cache/collection-cache.ts';
import type { WorkspacesService } from './lookup.ts';
import { list } from './actions/list.ts';
import { create } from './actions/create.ts';
import { get } from './actions/get.ts';
import { resolve } from './actions/resolve.ts';
import { state } from './actions/state.ts';
import { update } from './actions/update.ts';
import { remove } from './actions/remove.ts';
import { governance, operatingModel } from './actions/configuration.ts';
import { activity, recordActivity } from './actions/activity.ts';
import { capabilities } from './actions/capabilities.ts';
import { workspaceDashboard } from './actions/own-dashboard.ts';

/**
 * Workspaces: `/api/v1/workspaces` and its sub-resources, the activity log every package
 * writes to (kernel/activity.ts), and the contracts in kernel/workspace-contracts.ts
 * (dashboard contributions, the `workspace.deleted` cascade).
 */
export default {
  name: 'workspaces',
  actions: {
    list,
    create,
    get,
    resolve,
    state,
    update,
    remove,
    getOperatingModel: operatingModel.read,
    updateOperatingModel: operatingModel.write,
    getGovernance: governance.read,
    updateGovernance: governance.write,
    activity,
    capabilities,
    recordActivity,
    workspaceDashboard,
  },
  created(this: WorkspacesService) {
    this.models = defineWorkspaceModels(kernelOf(this.broker).db);
    this.listCache = CollectionCache.for(kernelOf(this.broker), 'workspaces');
  },
} as unknown as ServiceSchema;
