import type { ServiceSchema } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { CollectionCache } from '../../kernel/cache/collection-cache.ts';
import { WORKSPACE_DELETED_EVENT } from '../../kernel/workspace-contracts.ts';
import { AGENT_DELETED_EVENT } from '../../kernel/agents-contract.ts';
import { defineGoalsModels } from './model.ts';
import type { GoalsService } from './service.ts';
import * as goals from './actions/goals-item.ts';
import { list as listGoals } from './actions/goals-list.ts';
import { create as createGoal } from './actions/goals-create.ts';
import { list as listPlans, get as getPlan } from './actions/plans-read.ts';
import { approve, reject } from './actions/plans-decide.ts';
import { propose } from './actions/plans-propose.ts';
import { updateStep } from './actions/plans-step.ts';
import { onAgentDeleted, onWorkspaceDeleted, workspaceDashboard } from './actions/hooks.ts';

function created(this: GoalsService): void {
  const kernel = kernelOf(this.broker);
  this.models = defineGoalsModels(kernel.db);
  this.goalsCache = CollectionCache.for(kernel, 'goals');
}

/** Service `goals`: `/api/v1/goals`, the workspace cascade and dashboard, and goal ownership by agents. */
const goalsService = {
  name: 'goals',
  actions: { list: listGoals, create: createGoal, get: goals.get, update: goals.update, remove: goals.remove, workspaceDashboard },
  events: {
    [WORKSPACE_DELETED_EVENT]: onWorkspaceDeleted,
    [AGENT_DELETED_EVENT]: onAgentDeleted,
  },
  created,
};

/** Service `plans`: `/api/v1/plans` with approve/reject, and `plans.propose` / `plans.updateStep` for the agent runtime. */
const plansService = {
  name: 'plans',
  actions: { list: listPlans, get: getPlan, approve, reject, propose, updateStep },
  created,
};

/** Goals and plans (see README.md; the plan contract is in kernel/agents-contract.ts). */
export default [goalsService, plansService] as unknown as ServiceSchema[];
