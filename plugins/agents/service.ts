import type { ActionSchema, Context, Service } from 'moleculer';
import { QueryTypes, type ModelStatic, type Transaction } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { tenantRepo } from '../../kernel/tenancy/repo.ts';
import type { ActionDocKeys, RestDeclaration } from '../../kernel/openapi/types.ts';
import type { CollectionCache } from '../../kernel/cache/collection-cache.ts';
import { AGENT_UPDATED_EVENT, type AgentEventPayload } from '../../kernel/agents-contract.ts';
import type { AgentRow } from './model.ts';

/** The service instance the actions run on: `created()` sets these. */
export interface AgentsService extends Service {
  Agent: ModelStatic<AgentRow>;
  /** serialised list pages per entity; every committed write invalidates the entity's */
  listCache: CollectionCache;
}

export type AgentsAction = ActionSchema<AgentsService> & ActionDocKeys & { rest?: RestDeclaration };

/** The path parameter of the per-agent routes (any text: a non-UUID is simply not found). */
export const AGENT_ID_PARAM = { agent_id: { type: 'string', min: 1, max: 64 } } as const;

/** The caller's agent with that id, else 404 (also for another entity's agent or a non-UUID id). */
export async function loadAgent(svc: AgentsService, ctx: Context | string, id: string, opts: { transaction?: Transaction; lock?: boolean } = {}): Promise<AgentRow> {
  if (!isUuid(id)) throw ERRORS.NOT_FOUND(`No agent with id '${id}'.`, { resource: 'agent', id });
  return tenantRepo(svc.Agent, 'agent').get(ctx, id.toLowerCase(), opts);
}

/**
 * Serialises the writes that may change a workspace's master: taken before any agent row lock,
 * so two requests making masters in one workspace queue instead of both clearing and inserting.
 */
export async function lockMasterOf(svc: AgentsService, workspaceId: string, transaction: Transaction): Promise<void> {
  await svc.Agent.sequelize!.query("SELECT pg_advisory_xact_lock(hashtext('agents_master:' || $1))", { bind: [workspaceId], transaction });
}

/** Clears the master flag on the workspace's other agents (a write of each: its version moves on). */
export async function clearOtherMasters(svc: AgentsService, entityId: string, workspaceId: string, keepId: string, transaction: Transaction): Promise<{ id: string; version: number }[]> {
  return svc.Agent.sequelize!.query<{ id: string; version: number }>(
    `UPDATE agents SET is_master = false, version = version + 1, updated_at = now()
     WHERE entity_id = $1 AND workspace_id = $2 AND is_master AND id <> $3 RETURNING id, version`,
    { bind: [entityId, workspaceId, keepId], type: QueryTypes.SELECT, transaction },
  );
}

/** Emits after the change committed; a listener failing never undoes the change. */
export function emitAfterCommit(ctx: Context, event: string, payload: object): void {
  void Promise.resolve(ctx.emit(event, payload)).catch((err: unknown) => ctx.service?.logger.warn({ err, event }, 'emitting an agent event failed'));
}

/** agent.updated for each agent that lost the master flag to another. */
export function emitCleared(ctx: Context, entityId: string, workspaceId: string, cleared: { id: string; version: number }[], actor: AgentEventPayload['actor']): void {
  for (const { id, version } of cleared) {
    const payload: AgentEventPayload = { entity_id: entityId, agent_id: id, workspace_id: workspaceId, version, fields: ['is_master'], actor };
    emitAfterCommit(ctx, AGENT_UPDATED_EVENT, payload);
  }
}
