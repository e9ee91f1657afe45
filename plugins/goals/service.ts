import type { ActionSchema, Context, Service } from 'moleculer';
import type { Transaction } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { tenantRepo } from '../../kernel/tenancy/repo.ts';
import type { ActionDocKeys, RestDeclaration } from '../../kernel/openapi/types.ts';
import type { CollectionCache } from '../../kernel/cache/collection-cache.ts';
import { notFound } from './errors.ts';
import type { GoalRow, GoalsModels, PlanRow } from './model.ts';

/** The instance the actions of both services (goals, plans) run on: `created()` sets these. */
export interface GoalsService extends Service {
  models: GoalsModels;
  /** serialised goal list pages per entity; every committed goal write invalidates the entity's */
  goalsCache: CollectionCache;
}

export type GoalsAction = ActionSchema<GoalsService> & ActionDocKeys & { rest?: RestDeclaration };

/** The caller's goal, else 404 (also for another entity's goal or a non-UUID id). */
export async function loadGoal(svc: GoalsService, ctx: Context | string, id: string, opts: { transaction?: Transaction; lock?: boolean } = {}): Promise<GoalRow> {
  if (!isUuid(id)) throw notFound('goal', id);
  return tenantRepo(svc.models.Goal, 'goal').get(ctx, id.toLowerCase(), opts);
}

/** The caller's plan, else 404 (also for another entity's plan or a non-UUID id). */
export async function loadPlan(svc: GoalsService, ctx: Context | string, id: string, opts: { transaction?: Transaction; lock?: boolean } = {}): Promise<PlanRow> {
  if (!isUuid(id)) throw notFound('plan', id);
  return tenantRepo(svc.models.Plan, 'plan').get(ctx, id.toLowerCase(), opts);
}

/** Emits after the change committed; a listener failing never undoes the change. */
export function emitAfterCommit(ctx: Context, event: string, payload: object): void {
  void Promise.resolve(ctx.emit(event, payload)).catch((err: unknown) => ctx.service?.logger.warn({ err, event }, 'emitting a goals event failed'));
}

/** `ctx.meta.$statusCode` for a created resource. */
export function created(ctx: Context): void {
  (ctx.meta as { $statusCode?: number }).$statusCode = 201;
}
