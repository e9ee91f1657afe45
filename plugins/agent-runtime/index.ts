import type { Context, ServiceSchema } from 'moleculer';
import { listExecutions } from './executions.ts';
import { planGoal } from './goal-plans.ts';
import { agentTools } from './agent-tools.ts';
import { generateAgent } from './generate.ts';
import { applySettled, resumeFromPlan, resumeFromReview, resumeFromTask, startTaskRun, type RunRequested } from './task-runs.ts';
import { PLAN_APPROVED_EVENT, PLAN_REJECTED_EVENT, type PlanEventPayload } from '../../kernel/agents-contract.ts';
import { WORKFLOWS_RUN_SETTLED_EVENT, type RunSettled } from '../../kernel/nodes/durable.ts';

type Logged = { logger: { warn(...args: unknown[]): void } };

/**
 * The agent runtime's glue: task run requests start durable agent runs (the `agent` node type
 * on the workflow engine), a run's outcome moves its task, and a person's decision on the task
 * resumes the parked run. Serves GET /api/v1/executions. See README.md.
 */
export const executionsService = {
  name: 'executions',
  settings: { rest: '/executions' },
  dependencies: [],
  actions: { list: listExecutions },
  events: {
    'task.run.requested': {
      group: 'agent-runtime',
      async handler(this: Logged, ctx: Context<RunRequested>) {
        await startTaskRun(ctx.broker, ctx.params).catch((err: Error) => this.logger.warn({ err, task_id: ctx.params.task_id }, 'could not start an agent run for a task'));
      },
    },
    [WORKFLOWS_RUN_SETTLED_EVENT]: {
      group: 'agent-runtime',
      async handler(this: Logged, ctx: Context<RunSettled>) {
        await applySettled(ctx.broker, ctx.params).catch((err: Error) => this.logger.warn({ err, run_id: ctx.params.run_id }, 'could not apply an agent run outcome to its task'));
      },
    },
    'task.approval.decided': {
      group: 'agent-runtime',
      async handler(this: Logged, ctx: Context<Parameters<typeof resumeFromTask>[1]>) {
        await resumeFromTask(ctx, ctx.params).catch((err: Error) => this.logger.warn({ err, run_id: ctx.params.run_id }, 'could not resume a run after its approval'));
      },
    },
    [PLAN_APPROVED_EVENT]: {
      group: 'agent-runtime',
      async handler(this: Logged, ctx: Context<PlanEventPayload>) {
        await resumeFromPlan(ctx, ctx.params).catch((err: Error) => this.logger.warn({ err, plan_id: ctx.params.plan_id }, 'could not resume a run after its plan was approved'));
      },
    },
    [PLAN_REJECTED_EVENT]: {
      group: 'agent-runtime',
      async handler(this: Logged, ctx: Context<PlanEventPayload>) {
        await resumeFromPlan(ctx, ctx.params).catch((err: Error) => this.logger.warn({ err, plan_id: ctx.params.plan_id }, 'could not resume a run after its plan was rejected'));
      },
    },
    'task.delivery_review.resumed': {
      group: 'agent-runtime',
      async handler(this: Logged, ctx: Context<Parameters<typeof resumeFromReview>[1]>) {
        await resumeFromReview(ctx, ctx.params).catch((err: Error) => this.logger.warn({ err, run_id: ctx.params.run_id }, 'could not resume a run after its delivery review'));
      },
    },
    'task.hitl.responded': {
      group: 'agent-runtime',
      async handler(this: Logged, ctx: Context<Parameters<typeof resumeFromTask>[1] & { task_id: string }>) {
        await resumeFromTask(ctx, ctx.params).catch((err: Error) => this.logger.warn({ err, run_id: ctx.params.run_id }, 'could not resume a run after its answer'));
      },
    },
  },
} as unknown as ServiceSchema;

/** Agent routes that need the runtime (tools and policy, model generation), beside the agents package's CRUD under /agents. */
export const agentRuntimeRoutes = {
  name: 'agent-runtime',
  settings: { rest: '/agents' },
  actions: { tools: agentTools, generate: generateAgent },
} as unknown as ServiceSchema;

/** Goal routes that need the runtime (a planning run), beside the goals package's CRUD under /goals. */
export const goalPlanningRoutes = {
  name: 'goal-planning',
  settings: { rest: '/goals' },
  actions: { plan: planGoal },
} as unknown as ServiceSchema;

export default [executionsService, agentRuntimeRoutes, goalPlanningRoutes];
