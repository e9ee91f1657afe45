import type { ServiceSchema } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { CollectionCache } from '../../kernel/cache/collection-cache.ts';
import { WORKSPACE_DELETED_EVENT } from '../../kernel/workspace-contracts.ts';
import { defineAgentModel } from './model.ts';
import type { AgentsService } from './service.ts';
import { list } from './actions/list.ts';
import { create } from './actions/create.ts';
import { get } from './actions/get.ts';
import { update } from './actions/update.ts';
import { remove } from './actions/remove.ts';
import { resolve, master } from './actions/internal.ts';
import { workspaceDashboard, onWorkspaceDeleted } from './actions/workspace-hooks.ts';

/**
 * Agents: `/api/v1/agents` CRUD, and `agents.resolve` / `agents.master` for the other packages
 * (kernel/agents-contract.ts). Loaded on every role, so a caller on any node has a local
 * instance. See README.md.
 */
export default {
  name: 'agents',
  actions: { list, create, get, update, remove, resolve, master, workspaceDashboard },
  events: {
    [WORKSPACE_DELETED_EVENT]: onWorkspaceDeleted,
  },
  created(this: AgentsService) {
    const kernel = kernelOf(this.broker);
    this.Agent = defineAgentModel(kernel.db);
    this.listCache = CollectionCache.for(kernel, 'agents');
  },
} as unknown as ServiceSchema;
