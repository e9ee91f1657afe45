import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { checkDefinition, type StepDefinition } from '../definitions/validate.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { SNAPSHOT_FORMAT } from '../store/definitions.ts';
import type { AgentRunFilter } from '../store/run-queries.ts';
import { STEP_PARAM } from '../schemas.ts';
import type { WorkflowsAction } from '../service.ts';
import { PAGING_PARAMS } from '../../../kernel/tenancy/paging.ts';

export interface InternalRunParams {
  /** what started it; listed apart from workflow runs (`agent`: GET /api/v1/executions) */
  kind: 'agent';
  /** the record the run belongs to (the agent), and its version at start */
  subject_id: string;
  subject_version: number;
  name: string;
  workspace_id?: string | null;
  steps: StepDefinition[];
  trigger?: unknown;
  variables?: Record<string, unknown>;
  /** a stream will follow the run: its live events are broadcast from the start (LiveEvents.watch) */
  watch?: boolean;
}

/**
 * `workflows.startInternalRun` (internal): a run of a definition no one saved, built by another
 * package (the agent runtime's `trigger -> agent` runs): the same durable engine, store, lease,
 * sweeper and recovery as every workflow run. The steps are checked like a save; the snapshot is
 * kept on the run row. The caller (ctx.meta.user) owns the run. Answers `{run_id, status}` once
 * the row is committed and its id queued.
 */
export const startInternalRun: WorkflowsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    kind: { type: 'enum', values: ['agent'] },
    subject_id: { type: 'uuid' },
    subject_version: { type: 'number', integer: true, min: 1 },
    name: { type: 'string', min: 1, max: 200 },
    workspace_id: { type: 'string', max: 64, optional: true, nullable: true },
    steps: { type: 'array', min: 1, max: 50, items: STEP_PARAM },
    trigger: { type: 'any', optional: true },
    variables: { type: 'object', optional: true },
    watch: { type: 'boolean', optional: true },
  },
  async handler(ctx: Context<InternalRunParams>) {
    const who = identityOf(ctx);
    const p = ctx.params;
    const { body, problems } = checkDefinition({ name: p.name, steps: p.steps, variables: p.variables ?? {} }, (type) => this.nodeTypes.get(type)?.description);
    if (problems.length) throw WORKFLOWS_ERR.INVALID_DEFINITION('The run definition would not save.', { errors: problems });
    const id = newId();
    if (p.watch) this.live.watch(id);
    const row = await this.engine.enqueueRun({
      id,
      entity_id: who.entity_id,
      workflow_id: p.subject_id,
      workflow_version: p.subject_version,
      binding_id: null,
      workspace_id: p.workspace_id ?? null,
      owner_id: who.id,
      trigger_type: p.kind,
      snapshot: { format: SNAPSHOT_FORMAT, workflow_id: p.subject_id, version: p.subject_version, name: p.name, trigger_type: p.kind, steps: body.steps as StepDefinition[], variables: body.variables ?? {} },
      trigger: p.trigger ?? null,
      variables: body.variables ?? {},
    });
    return { run_id: row.id, status: row.status, seq: row.seq };
  },
};

/** `workflows.agentRuns` (internal): the agent runs of the caller's entity, newest first, for GET /api/v1/executions. */
export const agentRuns: WorkflowsAction = {
  visibility: 'public',
  params: {
    $$strict: true,
    status: { type: 'string', max: 16, optional: true },
    workspace_id: { type: 'string', max: 64, optional: true },
    agent_id: { type: 'string', max: 64, optional: true },
    task_id: { type: 'string', max: 64, optional: true },
    conversation_id: { type: 'string', max: 64, optional: true },
    run_id: { type: 'string', max: 64, optional: true },
    ...PAGING_PARAMS,
  },
  async handler(ctx: Context<AgentRunFilter & { limit: number; offset: number }>) {
    const who = identityOf(ctx);
    const { limit, offset, ...filter } = ctx.params;
    return this.runQueries.agentRuns(who.entity_id, filter, limit, offset);
  },
};

/** `workflows.interruptRun` is an event (any node may drive the run): see index.ts. */
export { WORKFLOWS_INTERRUPT_EVENT as INTERRUPT_EVENT } from '../../../kernel/nodes/durable.ts';
