import type { Context } from 'moleculer';
import type { WhereOptions } from 'sequelize';
import type { JSONSchema } from '../../../kernel/openapi/types.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import type { PlanStatus } from '../../../kernel/agents-contract.ts';
import { PLAN_STATUS_RULE, UUID_RULE } from '../fields.ts';
import { loadPlan, type GoalsAction } from '../service.ts';
import { PLAN_SCHEMA, planView } from '../views.ts';
import type { PlanAttributes } from '../model.ts';

export const PLAN_ID_PARAM = { plan_id: { type: 'string', min: 1, max: 64 } } as const;

const FILTERS = ['goal_id', 'task_id', 'agent_id', 'workspace_id'] as const;

type ListParams = { limit: number; offset: number; status?: PlanStatus } & Partial<Record<(typeof FILTERS)[number], string>>;

/** `GET /api/v1/plans`: the caller's plans, newest first. */
export const list: GoalsAction = {
  rest: 'GET /',
  summary: 'List plans',
  description: 'Newest first; `goal_id`, `task_id`, `agent_id`, `workspace_id` and `status` filter (`status=pending`: the plans waiting for a decision).',
  tags: ['plans'],
  params: {
    ...PAGING_PARAMS,
    ...Object.fromEntries(FILTERS.map((f) => [f, { ...UUID_RULE, optional: true }])),
    status: { ...PLAN_STATUS_RULE, optional: true },
  },
  response: pageSchema(PLAN_SCHEMA) as JSONSchema,
  async handler(ctx: Context<ListParams>) {
    const { limit, offset, status } = ctx.params;
    const where: Record<string, unknown> = {};
    for (const field of FILTERS) if (ctx.params[field]) where[field] = ctx.params[field]!.toLowerCase();
    if (status) where.status = status;
    const page = await tenantRepo(this.models.Plan, 'plan').pageRows<PlanAttributes>(ctx, {
      where: where as WhereOptions,
      order: [['created_at', 'DESC'], ['id', 'DESC']],
      limit,
      offset,
    });
    return { ...page, items: page.items.map(planView) };
  },
};

/** `GET /api/v1/plans/{plan_id}` */
export const get: GoalsAction = {
  rest: 'GET /:plan_id',
  summary: 'Get a plan',
  tags: ['plans'],
  params: { ...PLAN_ID_PARAM },
  response: PLAN_SCHEMA,
  async handler(ctx: Context<{ plan_id: string }>) {
    return planView(await loadPlan(this, ctx, ctx.params.plan_id));
  },
};
