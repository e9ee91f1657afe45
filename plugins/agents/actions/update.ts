import type { Context } from 'moleculer';
import { isDeepStrictEqual } from 'node:util';
import { UniqueConstraintError } from 'sequelize';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { AGENT_UPDATED_EVENT, type AgentEventPayload } from '../../../kernel/agents-contract.ts';
import { AGENT_FIELD_PARAMS, duplicateTools, invalid, lowerIds, masterProblem, type AgentFieldInput } from '../fields.ts';
import { referenceProblems } from '../refs.ts';
import { AGENT_ID_PARAM, clearOtherMasters, emitAfterCommit, emitCleared, loadAgent, lockMasterOf, type AgentsAction } from '../service.ts';
import { AGENT_SCHEMA, agentView } from '../views.ts';
import type { AgentAttributes } from '../model.ts';

type Changes = Partial<AgentFieldInput>;

/** The requested values that differ from the row's. */
function changesOf(row: AgentAttributes, requested: Changes): Changes {
  const changes: Record<string, unknown> = {};
  for (const [field, to] of Object.entries(requested)) {
    if (to !== undefined && !isDeepStrictEqual((row as unknown as Record<string, unknown>)[field], to)) changes[field] = to;
  }
  return changes as Changes;
}

/** The workspace whose master the write may change (its lock is taken), or null. */
function masterWorkspace(row: AgentAttributes, requested: Changes): string | null {
  const isMaster = requested.is_master ?? row.is_master;
  const workspaceId = requested.workspace_id !== undefined ? requested.workspace_id : row.workspace_id;
  return isMaster ? workspaceId : null;
}

/**
 * `PUT /api/v1/agents/{agent_id}`: changes the fields given. A request that changes nothing
 * writes nothing (same version, no event).
 */
export const update: AgentsAction = {
  rest: 'PUT /:agent_id',
  summary: 'Update an agent',
  description:
    "Changes the fields given; fields left out keep their value. `is_master: true` clears the flag on the workspace's previous master; a master cannot be made entity-wide (422).",
  tags: ['agents'],
  params: { ...AGENT_ID_PARAM, ...AGENT_FIELD_PARAMS },
  response: AGENT_SCHEMA,
  async handler(ctx: Context<AgentFieldInput & { agent_id: string }>) {
    const who = identityOf(ctx);
    const { agent_id: agentId, ...rest } = ctx.params;
    const requested = lowerIds(rest) as Changes;
    const before = await loadAgent(this, ctx, agentId);
    const early = changesOf(before, requested);
    const problems = [...duplicateTools(requested.tools), ...masterProblem({ is_master: requested.is_master ?? before.is_master, workspace_id: requested.workspace_id !== undefined ? requested.workspace_id : before.workspace_id })];
    problems.push(...(await referenceProblems(ctx, { workspace_id: early.workspace_id, api_key_id: early.api_key_id })));
    if (problems.length) throw invalid(problems);
    const lockedWorkspace = masterWorkspace(before, requested);
    const { row, changes, cleared } = await this.Agent.sequelize!.transaction(async (transaction) => {
      if (lockedWorkspace) await lockMasterOf(this, lockedWorkspace, transaction);
      const row = await loadAgent(this, ctx, before.id, { transaction, lock: true });
      if (masterWorkspace(row, requested) !== lockedWorkspace) throw ERRORS.CONFLICT(`Agent '${row.id}' changed meanwhile; read it again and retry.`);
      const late = masterProblem({ is_master: requested.is_master ?? row.is_master, workspace_id: requested.workspace_id !== undefined ? requested.workspace_id : row.workspace_id });
      if (late.length) throw invalid(late);
      const changes = changesOf(row, requested);
      let cleared: { id: string; version: number }[] = [];
      if (Object.keys(changes).length === 0) return { row, changes, cleared };
      if (lockedWorkspace && (changes.is_master || changes.workspace_id !== undefined)) {
        cleared = await clearOtherMasters(this, row.entity_id, lockedWorkspace, row.id, transaction);
      }
      row.set(changes as Partial<AgentAttributes>);
      await row.save({ transaction });
      return { row, changes, cleared };
    }).catch((err: unknown) => {
      if (err instanceof UniqueConstraintError) throw ERRORS.CONFLICT('Another agent became master of this workspace at the same time; try again.');
      throw err;
    });
    const fields = Object.keys(changes);
    if (fields.length > 0) {
      await this.listCache.invalidate(row.entity_id);
      const actor = { type: 'user' as const, id: who.id };
      if (lockedWorkspace) emitCleared(ctx, row.entity_id, lockedWorkspace, cleared, actor);
      const payload: AgentEventPayload = { entity_id: row.entity_id, agent_id: row.id, workspace_id: row.workspace_id, version: row.version, fields, actor };
      emitAfterCommit(ctx, AGENT_UPDATED_EVENT, payload);
    }
    return agentView(row);
  },
};
