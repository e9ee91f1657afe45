import type { Context } from 'moleculer';
import { isDeepStrictEqual } from 'node:util';
import { invalid } from '../errors.ts';
import { DUE_AT_RULE, GOAL_STATUS_RULE, METRICS_RULE, normalizeMetrics, OBJECTIVE_RULE, parseDueAt, TITLE_RULE, UUID_RULE, type MetricInput } from '../fields.ts';
import { agentProblem } from '../refs.ts';
import { loadGoal, type GoalsAction } from '../service.ts';
import { GOAL_SCHEMA, goalView } from '../views.ts';
import type { GoalAttributes } from '../model.ts';

const GOAL_ID_PARAM = { goal_id: { type: 'string', min: 1, max: 64 } } as const;

/** `GET /api/v1/goals/{goal_id}` */
export const get: GoalsAction = {
  rest: 'GET /:goal_id',
  summary: 'Get a goal',
  tags: ['goals'],
  params: { ...GOAL_ID_PARAM },
  response: GOAL_SCHEMA,
  async handler(ctx: Context<{ goal_id: string }>) {
    return goalView(await loadGoal(this, ctx, ctx.params.goal_id));
  },
};

interface UpdateParams {
  goal_id: string;
  title?: string;
  objective?: string;
  metrics?: MetricInput[];
  status?: GoalAttributes['status'];
  agent_id?: string | null;
  due_at?: string | null;
}

/** `PUT /api/v1/goals/{goal_id}`: changes the fields given; a request that changes nothing writes nothing. */
export const update: GoalsAction = {
  rest: 'PUT /:goal_id',
  summary: 'Update a goal',
  description:
    'Changes the fields given; fields left out keep their value. `metrics` replaces the whole list (send it back with new `current` values to record progress). The workspace of a goal does not change.',
  tags: ['goals'],
  params: {
    ...GOAL_ID_PARAM,
    title: { ...TITLE_RULE, optional: true },
    objective: { ...OBJECTIVE_RULE, optional: true },
    metrics: { ...METRICS_RULE, optional: true },
    status: { ...GOAL_STATUS_RULE, optional: true },
    agent_id: { ...UUID_RULE, optional: true, nullable: true },
    due_at: { ...DUE_AT_RULE, optional: true, nullable: true },
  },
  response: GOAL_SCHEMA,
  async handler(ctx: Context<UpdateParams>) {
    const { goal_id: goalId, ...input } = ctx.params;
    const requested: Partial<GoalAttributes> = {};
    if (input.title !== undefined) requested.title = input.title;
    if (input.objective !== undefined) requested.objective = input.objective;
    if (input.metrics !== undefined) requested.metrics = normalizeMetrics(input.metrics);
    if (input.status !== undefined) requested.status = input.status;
    if (input.agent_id !== undefined) requested.agent_id = input.agent_id?.toLowerCase() ?? null;
    if (input.due_at !== undefined) requested.due_at = input.due_at ? parseDueAt('due_at', input.due_at) : null;
    const before = await loadGoal(this, ctx, goalId);
    if (requested.agent_id && requested.agent_id !== before.agent_id) {
      const problem = await agentProblem(ctx, requested.agent_id, before.workspace_id);
      if (problem) throw invalid([problem]);
    }
    const { row, changed } = await this.models.Goal.sequelize!.transaction(async (transaction) => {
      const row = await loadGoal(this, ctx, before.id, { transaction, lock: true });
      const changes = Object.fromEntries(Object.entries(requested).filter(([field, to]) => !sameValue((row as unknown as Record<string, unknown>)[field], to)));
      if (Object.keys(changes).length === 0) return { row, changed: false };
      row.set(changes);
      await row.save({ transaction });
      return { row, changed: true };
    });
    if (changed) await this.goalsCache.invalidate(row.entity_id);
    return goalView(row);
  },
};

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) return a !== null && b !== null && new Date(a as Date).getTime() === new Date(b as Date).getTime();
  return isDeepStrictEqual(a, b);
}

/** `DELETE /api/v1/goals/{goal_id}`: the goal goes; its plans stay, without the goal. */
export const remove: GoalsAction = {
  rest: 'DELETE /:goal_id',
  summary: 'Delete a goal',
  description: "The goal's plans are kept (their `goal_id` becomes null).",
  tags: ['goals'],
  params: { ...GOAL_ID_PARAM },
  response: { 204: { description: 'Deleted' } },
  async handler(ctx: Context<{ goal_id: string }>) {
    const row = await this.models.Goal.sequelize!.transaction(async (transaction) => {
      const row = await loadGoal(this, ctx, ctx.params.goal_id, { transaction, lock: true });
      await row.destroy({ transaction });
      return row;
    });
    await this.goalsCache.invalidate(row.entity_id);
    return undefined;
  },
};
