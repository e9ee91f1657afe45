import type { Context } from 'moleculer';
import { UniqueConstraintError } from 'sequelize';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { tenantRepo } from '../../../kernel/tenancy/repo.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { AGENT_CREATED_EVENT, AGENT_DEFAULT_MAX_ROUNDS, type AgentEventPayload } from '../../../kernel/agents-contract.ts';
import { AGENT_FIELD_PARAMS, duplicateTools, invalid, lowerIds, masterProblem, type AgentFieldInput } from '../fields.ts';
import { referenceProblems } from '../refs.ts';
import { clearOtherMasters, emitAfterCommit, emitCleared, lockMasterOf, type AgentsAction } from '../service.ts';
import { AGENT_SCHEMA, agentView } from '../views.ts';

/** `POST /api/v1/agents`: a new agent; made master, it takes the flag from the workspace's previous master. */
export const create: AgentsAction = {
  rest: 'POST /',
  summary: 'Create an agent',
  description:
    '`workspace_id` null or left out: entity-wide. `tools` names bound tools (not necessarily loaded now). `max_rounds` defaults to ' +
    `${AGENT_DEFAULT_MAX_ROUNDS}. \`is_master: true\` needs a workspace_id and clears the flag on the workspace's previous master.`,
  tags: ['agents'],
  params: { ...AGENT_FIELD_PARAMS, name: { ...AGENT_FIELD_PARAMS.name, optional: false } },
  response: { 201: { description: 'The new agent', schema: AGENT_SCHEMA } },
  async handler(ctx: Context<AgentFieldInput & { name: string }, { $statusCode?: number }>) {
    const who = identityOf(ctx);
    const input = lowerIds(ctx.params);
    const values = {
      id: newId(),
      workspace_id: input.workspace_id ?? null,
      name: input.name,
      description: input.description ?? '',
      instructions: input.instructions ?? '',
      api_key_id: input.api_key_id ?? null,
      model: input.model ?? null,
      tools: input.tools ?? [],
      max_rounds: input.max_rounds ?? AGENT_DEFAULT_MAX_ROUNDS,
      is_master: input.is_master ?? false,
      status: input.status ?? 'active',
      created_by: who.id,
    };
    const problems = [...duplicateTools(values.tools), ...masterProblem(values)];
    problems.push(...(await referenceProblems(ctx, values)));
    if (problems.length) throw invalid(problems);
    const { row, cleared } = await this.Agent.sequelize!.transaction(async (transaction) => {
      let cleared: { id: string; version: number }[] = [];
      if (values.is_master && values.workspace_id) {
        await lockMasterOf(this, values.workspace_id, transaction);
        cleared = await clearOtherMasters(this, who.entity_id, values.workspace_id, values.id, transaction);
      }
      const row = await tenantRepo(this.Agent, 'agent').create(ctx, values, { transaction });
      return { row, cleared };
    }).catch((err: unknown) => {
      if (err instanceof UniqueConstraintError) throw ERRORS.CONFLICT('Another agent became master of this workspace at the same time; try again.');
      throw err;
    });
    await this.listCache.invalidate(who.entity_id);
    const actor = { type: 'user' as const, id: who.id };
    emitCleared(ctx, who.entity_id, row.workspace_id!, cleared, actor);
    const payload: AgentEventPayload = { entity_id: who.entity_id, agent_id: row.id, workspace_id: row.workspace_id, version: row.version, actor };
    emitAfterCommit(ctx, AGENT_CREATED_EVENT, payload);
    ctx.meta.$statusCode = 201;
    return agentView(row);
  },
};
