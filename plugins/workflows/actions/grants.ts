import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import type { JSONSchema } from '../../../kernel/openapi/types.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import type { GrantRow, GrantScope } from '../store/grants.ts';
import type { PauseInfo, RunRow } from '../store/run-types.ts';
import type { WorkflowsAction, WorkflowsService } from '../service.ts';
import { inLoopBody } from '../step-in-loop.ts';

/** The node type whose steps may use and create grants (nodes/workflow_action_grant). */
export const GRANT_NODE_TYPE = 'workflow_action_grant';

const ACTION_NAME = { type: 'string', min: 1, max: 200, pattern: '^[A-Za-z0-9_.:-]+$' } as const;
const RUN_STEP = { run_id: { type: 'uuid' }, step_id: { type: 'string', min: 1, max: 128 }, action: ACTION_NAME } as const;

const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const;

export const GRANT_SCHEMA: JSONSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    action: { type: 'string' },
    workflow_id: { type: 'string', format: 'uuid' },
    binding_id: { type: ['string', 'null'], format: 'uuid' },
    max_uses: { type: ['integer', 'null'], description: 'null: no limit' },
    uses: { type: 'integer' },
    expires_at: { ...nullableDate, description: 'null: never expires' },
    revoked_at: nullableDate,
    active: { type: 'boolean', description: 'neither revoked, expired nor used up' },
    origin_run_id: { type: 'string', format: 'uuid' },
    origin_step_id: { type: 'string' },
    approved_by: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'action', 'workflow_id', 'binding_id', 'max_uses', 'uses', 'expires_at', 'revoked_at', 'active', 'origin_run_id', 'origin_step_id', 'approved_by', 'created_at'],
};

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

export function grantView(g: GrantRow): Record<string, unknown> {
  const active = g.revoked_at === null && (g.expires_at === null || new Date(g.expires_at).getTime() > Date.now()) && (g.max_uses === null || g.uses < g.max_uses);
  return {
    id: g.id, action: g.action, workflow_id: g.workflow_id, binding_id: g.binding_id, max_uses: g.max_uses, uses: g.uses,
    expires_at: iso(g.expires_at), revoked_at: iso(g.revoked_at), active, origin_run_id: g.origin_run_id, origin_step_id: g.origin_step_id,
    approved_by: g.approved_by, created_at: iso(g.created_at),
  };
}

/** The run a grant step belongs to, and the scope it decides: the run's own owner, workflow and binding, never the caller's say. */
async function scopeOf(svc: WorkflowsService, ctx: Context, p: { run_id: string; step_id: string; action: string }): Promise<{ run: RunRow; scope: GrantScope }> {
  const run = await svc.runQueries.get(identityOf(ctx).entity_id, p.run_id);
  const step = run.snapshot?.steps.find((s) => s.id === p.step_id);
  if (step?.type !== GRANT_NODE_TYPE) throw ERRORS.VALIDATION_FAILED(`Step '${p.step_id}' of this run is not a ${GRANT_NODE_TYPE} step.`, [{ field: 'step_id', message: `not a ${GRANT_NODE_TYPE} step of the run`, type: 'notGrantStep' }]);
  if (run.status !== 'running') throw WORKFLOWS_ERR.ILLEGAL_TRANSITION(`A ${run.status} run uses no grant.`, { run_id: run.id, status: run.status });
  if (!run.owner_id) throw ERRORS.VALIDATION_FAILED('The run has no owner to hold a grant.', [{ field: 'run_id', message: 'the run has no owner', type: 'noOwner' }]);
  return { run, scope: { entity_id: run.entity_id, owner_id: run.owner_id, action: p.action, workflow_id: run.workflow_id, binding_id: run.binding_id } };
}

/**
 * `workflows.useGrant` (internal, for workflow_action_grant steps): takes one use of a valid
 * grant of the step's scope, or answers the one this run step used already; `{grant: null}` when
 * there is none; `in_loop_body` (nothing used) for a step in a loop body.
 */
export const useGrant: WorkflowsAction = {
  visibility: 'public',
  params: { $$strict: true, ...RUN_STEP },
  async handler(ctx: Context<{ run_id: string; step_id: string; action: string }>) {
    const { run, scope } = await scopeOf(this, ctx, ctx.params);
    // a use is recorded per run step: in a loop body every iteration would share one
    if (inLoopBody(this.nodeTypes, run, ctx.params.step_id)) return { grant: null, in_loop_body: true };
    const at = { run_id: run.id, step_id: ctx.params.step_id };
    const grant = (await this.grants.usedBy(scope, at)) ?? (await this.grants.use(scope, at));
    return { grant: grant ? grantView(grant) : null };
  },
};

/**
 * `workflows.createGrant` (internal): the approved repeat of a workflow_action_grant step
 * creates its grant (with this step's use). Only when the step's stored wait holds the run
 * owner's explicit approval: a generic resume, a retry or any other caller creates nothing.
 */
export const createGrant: WorkflowsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    ...RUN_STEP,
    expires_in_seconds: { type: 'number', integer: true, min: 1, max: 31_536_000, nullable: true, optional: true },
    max_uses: { type: 'number', integer: true, min: 1, max: 1_000_000, nullable: true, optional: true },
  },
  async handler(ctx: Context<{ run_id: string; step_id: string; action: string; expires_in_seconds?: number | null; max_uses?: number | null }>) {
    const { run, scope } = await scopeOf(this, ctx, ctx.params);
    const waiting = (await this.runQueries.receipts(run.id)).find((r) => r.step_id === ctx.params.step_id && r.status === 'waiting');
    const pause = waiting?.directive?.pause as PauseInfo | undefined;
    const approval = pause?.kind === 'runtime_approval' ? pause.approval : undefined;
    if (approval?.decision !== 'approve' || approval.decided_by !== run.owner_id) {
      throw WORKFLOWS_ERR.DECISION_REQUIRED('A grant is created only from the run owner\'s explicit approval of this step.', { run_id: run.id, step_id: ctx.params.step_id });
    }
    const at = { run_id: run.id, step_id: ctx.params.step_id };
    const grant = await this.grants.create(scope, at, { expires_in_seconds: ctx.params.expires_in_seconds ?? null, max_uses: ctx.params.max_uses ?? null, approved_by: approval.decided_by });
    return { grant: grantView(grant) };
  },
};

export const listGrants: WorkflowsAction = {
  rest: 'GET /grants',
  summary: "The caller's action grants",
  description: 'Durable approvals given to workflow_action_grant steps of runs the caller owns, newest first; `active=true` keeps those neither revoked, expired nor used up.',
  tags: ['workflows'],
  params: { ...PAGING_PARAMS, action: { ...ACTION_NAME, optional: true }, binding_id: { type: 'uuid', optional: true }, active: { type: 'boolean', convert: true, optional: true } },
  response: pageSchema(GRANT_SCHEMA),
  async handler(ctx: Context<{ limit: number; offset: number; action?: string; binding_id?: string; active?: boolean }>) {
    const who = identityOf(ctx);
    const { limit, offset, ...filter } = ctx.params;
    const page = await this.grants.list(who.entity_id, who.id, filter, limit, offset);
    return { items: page.items.map(grantView), total: page.total, limit, offset };
  },
};

export const revokeGrant: WorkflowsAction = {
  rest: 'POST /grants/:grant_id/revoke',
  summary: 'Revoke an action grant',
  description: 'Only its owner (the owner of the run that asked); later steps of its scope park for approval again (or fail, in check mode). Revoking a revoked grant changes nothing.',
  tags: ['workflows'],
  params: { grant_id: { type: 'uuid' } },
  response: GRANT_SCHEMA,
  async handler(ctx: Context<{ grant_id: string }>) {
    const who = identityOf(ctx);
    const existing = await this.grants.get(who.entity_id, ctx.params.grant_id);
    if (!existing) throw ERRORS.NOT_FOUND(`No action grant with id '${ctx.params.grant_id}'.`, { resource: 'workflow_action_grant', id: ctx.params.grant_id });
    if (existing.owner_id !== who.id) throw WORKFLOWS_ERR.NOT_GRANT_OWNER('Only the owner of a grant can revoke it.', { grant_id: existing.id });
    const revoked = await this.grants.revoke(who.entity_id, existing.id, who.id);
    return grantView(revoked ?? existing);
  },
};
