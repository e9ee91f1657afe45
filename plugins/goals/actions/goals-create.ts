import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { invalid, type FieldProblem } from '../errors.ts';
import { DUE_AT_RULE, METRICS_RULE, normalizeMetrics, OBJECTIVE_RULE, parseDueAt, titleFrom, TITLE_RULE, UUID_RULE, type MetricInput } from '../fields.ts';
import { agentProblem, workspaceProblem } from '../refs.ts';
import { created, type GoalsAction } from '../service.ts';
import { GOAL_SCHEMA, goalView } from '../views.ts';

interface CreateParams {
  workspace_id: string;
  objective: string;
  title?: string;
  metrics?: MetricInput[];
  agent_id?: string | null;
  due_at?: string | null;
}

/** `POST /api/v1/goals`: a new active goal in one of the caller's workspaces. */
export const create: GoalsAction = {
  rest: 'POST /',
  summary: 'Create a goal',
  description:
    'A goal starts `active`. `title` defaults to the first line of `objective`. `metrics`: up to 20 `{name, target, unit?, current?, direction?}` (`current` defaults to null, `direction` to increase; names unique). `agent_id`: an agent of the workspace or an entity-wide one.',
  tags: ['goals'],
  params: {
    workspace_id: UUID_RULE,
    objective: OBJECTIVE_RULE,
    title: { ...TITLE_RULE, optional: true },
    metrics: { ...METRICS_RULE, optional: true },
    agent_id: { ...UUID_RULE, optional: true, nullable: true },
    due_at: { ...DUE_AT_RULE, optional: true, nullable: true },
  },
  response: { 201: { description: 'The new goal', schema: GOAL_SCHEMA } },
  async handler(ctx: Context<CreateParams>) {
    const who = identityOf(ctx);
    const workspaceId = ctx.params.workspace_id.toLowerCase();
    const agentId = ctx.params.agent_id?.toLowerCase() ?? null;
    const metrics = normalizeMetrics(ctx.params.metrics ?? []);
    const dueAt = ctx.params.due_at ? parseDueAt('due_at', ctx.params.due_at) : null;
    const problems = (await Promise.all([workspaceProblem(ctx, workspaceId), agentId ? agentProblem(ctx, agentId, workspaceId) : null])).filter((p): p is FieldProblem => p !== null);
    if (problems.length) throw invalid(problems);
    const row = await tenantRepo(this.models.Goal, 'goal').create(ctx, {
      id: newId(),
      workspace_id: workspaceId,
      title: ctx.params.title ?? titleFrom(ctx.params.objective),
      objective: ctx.params.objective,
      metrics,
      agent_id: agentId,
      due_at: dueAt,
      created_by: who.id,
    });
    await this.goalsCache.invalidate(who.entity_id);
    created(ctx);
    return goalView(row);
  },
};
