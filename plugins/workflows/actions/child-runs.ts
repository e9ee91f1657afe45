import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { snapshotHash } from '../store/run-links.ts';
import { inLoopBody } from '../step-in-loop.ts';
import type { NewRun, RunRow } from '../store/run-types.ts';
import type { WorkflowsAction, WorkflowsService } from '../service.ts';

/** How deep sub-workflows nest: a child of a top-level run is at depth 1. */
export const MAX_SUBWORKFLOW_DEPTH = 5;

/** The node types whose steps start child runs (nodes/subworkflow, nodes/foreach_subworkflow). */
const PARENT_TYPES = new Set(['subworkflow', 'foreach_subworkflow']);

const PARENT_STEP = { run_id: { type: 'uuid' }, step_id: { type: 'string', min: 1, max: 128 } } as const;

/** The running parent run of the caller's entity whose step `stepId` may start children. */
async function parentOf(svc: WorkflowsService, ctx: Context, runId: string, stepId: string): Promise<RunRow> {
  const run = await svc.runQueries.get(entityOf(ctx), runId);
  const step = run.snapshot?.steps.find((s) => s.id === stepId);
  if (!step || !PARENT_TYPES.has(step.type)) throw ERRORS.VALIDATION_FAILED(`Step '${stepId}' of this run does not start sub-workflows.`, [{ field: 'step_id', message: 'not a subworkflow step of the run', type: 'notSubworkflowStep' }]);
  if (run.status !== 'running') throw WORKFLOWS_ERR.ILLEGAL_TRANSITION(`A ${run.status} run starts no child.`, { run_id: run.id, status: run.status });
  if (inLoopBody(svc.nodeTypes, run, stepId)) throw ERRORS.VALIDATION_FAILED(`Step '${stepId}' is in a loop body, where it cannot start sub-workflows.`, [{ field: 'step_id', message: 'in a loop body', type: 'inLoopBody' }]);
  return run;
}

async function childDepth(svc: WorkflowsService, parent: RunRow): Promise<number> {
  const depth = (await svc.links.depthOf(parent.entity_id, parent.id)) + 1;
  if (depth > MAX_SUBWORKFLOW_DEPTH) {
    throw ERRORS.VALIDATION_FAILED(`Sub-workflows nest at most ${MAX_SUBWORKFLOW_DEPTH} deep; this child would be at depth ${depth}.`, [{ field: 'workflow_id', message: `nesting deeper than ${MAX_SUBWORKFLOW_DEPTH}`, type: 'depthExceeded' }]);
  }
  return depth;
}

/**
 * `workflows.childPlan` (internal): what a child of this step would run: the workflow's current
 * version in the caller's entity (404 for another entity's or a missing one), its snapshot hash
 * and the child's depth (422 past MAX_SUBWORKFLOW_DEPTH).
 */
export const childPlan: WorkflowsAction = {
  visibility: 'public',
  params: { $$strict: true, ...PARENT_STEP, workflow_id: { type: 'string', min: 1, max: 64 } },
  async handler(ctx: Context<{ run_id: string; step_id: string; workflow_id: string }>) {
    const parent = await parentOf(this, ctx, ctx.params.run_id, ctx.params.step_id);
    const definition = await this.definitions.get(parent.entity_id, ctx.params.workflow_id);
    const depth = await childDepth(this, parent);
    const snapshot = await this.versions.of(parent.entity_id, definition.id, definition.version);
    if (!snapshot) throw ERRORS.NOT_FOUND(`No version ${definition.version} of workflow '${definition.id}'.`, { resource: 'workflow', id: definition.id });
    return { workflow_id: definition.id, version: definition.version, snapshot_hash: snapshotHash(snapshot), depth };
  },
};

/**
 * `workflows.childRuns` (internal): the children a parent step started, by item index, with
 * their status; `in_loop_body` when the step may not start children (see inLoopBody).
 */
export const childRuns: WorkflowsAction = {
  visibility: 'public',
  params: { $$strict: true, ...PARENT_STEP },
  async handler(ctx: Context<{ run_id: string; step_id: string }>) {
    const parent = await this.runQueries.get(entityOf(ctx), ctx.params.run_id);
    const links = await this.links.childrenOf(parent.entity_id, parent.id, ctx.params.step_id);
    return { in_loop_body: inLoopBody(this.nodeTypes, parent, ctx.params.step_id), children: links.map((l) => ({ run_id: l.child_run_id, item_index: l.item_index, snapshot_hash: l.snapshot_hash.trim(), status: l.status })) };
  },
};

/**
 * `workflows.startChildRun` (internal; call it on the node driving the parent): starts, or finds
 * again, the child `child_run_id` of a parent step, running the pinned `version` of the workflow
 * whose snapshot must hash to `snapshot_hash` (409 otherwise). A child id already linked to
 * another parent, step or item, or naming a run that is not a child, is 409: a continuation
 * cannot adopt a run. The child runs in this process at once, held by it (engine.startHere: the
 * parent's step waits for it, so it must not wait for a free queue slot).
 */
export const startChildRun: WorkflowsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    ...PARENT_STEP,
    child_run_id: { type: 'uuid' },
    item_index: { type: 'number', integer: true, min: 0, max: 100_000 },
    workflow_id: { type: 'uuid' },
    version: { type: 'number', integer: true, min: 1 },
    snapshot_hash: { type: 'string', length: 64, pattern: '^[0-9a-f]{64}$' },
    input: { type: 'any', optional: true },
  },
  async handler(ctx: Context<{ run_id: string; step_id: string; child_run_id: string; item_index: number; workflow_id: string; version: number; snapshot_hash: string; input?: unknown }>) {
    const p = ctx.params;
    const parent = await parentOf(this, ctx, p.run_id, p.step_id);
    const snapshot = await this.versions.of(parent.entity_id, p.workflow_id, p.version);
    if (!snapshot) throw ERRORS.NOT_FOUND(`No version ${p.version} of workflow '${p.workflow_id}'.`, { resource: 'workflow', id: p.workflow_id });
    if (snapshotHash(snapshot) !== p.snapshot_hash) throw ERRORS.CONFLICT('The continuation does not match the workflow version it names (snapshot hash).', { child_run_id: p.child_run_id });
    const depth = await childDepth(this, parent);
    const known = (await this.links.childrenOf(parent.entity_id, parent.id, p.step_id)).find((l) => l.child_run_id === p.child_run_id);
    if (!known && (await this.links.runExists(p.child_run_id))) throw ERRORS.CONFLICT('That run id is taken by a run that is not a child of this step.', { child_run_id: p.child_run_id });
    const link = known ?? (await this.links.link(parent.entity_id, { child_run_id: p.child_run_id, parent_run_id: parent.id, parent_step_id: p.step_id, item_index: p.item_index, depth, snapshot_hash: p.snapshot_hash }));
    if (!link || link.parent_run_id !== parent.id || link.parent_step_id !== p.step_id || link.item_index !== p.item_index || link.snapshot_hash.trim() !== p.snapshot_hash) {
      throw ERRORS.CONFLICT('That child id is linked to another parent step or item.', { child_run_id: p.child_run_id });
    }
    const existing = await this.runQueries.find(parent.entity_id, p.child_run_id);
    if (existing) return { run_id: existing.id, status: existing.status, created: false };
    const run: NewRun = {
      id: p.child_run_id,
      entity_id: parent.entity_id,
      workflow_id: p.workflow_id,
      workflow_version: p.version,
      binding_id: null,
      workspace_id: parent.workspace_id,
      owner_id: parent.owner_id,
      trigger_type: 'subworkflow',
      snapshot,
      snapshot_by_version: true,
      trigger: p.input ?? null,
      variables: snapshot.variables ?? {},
    };
    const row = await this.engine.startHere(run);
    return { run_id: row.id, status: row.status, created: true };
  },
};
