import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { newRunOf, waitForRun } from '../run-launch.ts';
import { runSummary } from '../run-view.ts';
import { openRunStream } from '../sse.ts';
import { ID_PARAM, RUN_SCHEMA, RUN_STARTED_SCHEMA } from '../schemas.ts';
import type { DefinitionRow } from '../store/definitions.ts';
import type { BindingRow } from '../store/bindings.ts';
import type { WorkflowsAction, WorkflowsService } from '../service.ts';
import { bindingWorkspace } from '../workspace-of.ts';
import { openWorkspace } from '../../../kernel/workspace-state.ts';

const RUN_BODY = {
  input: { type: 'any', optional: true },
  variables: { type: 'object', optional: true },
  wait: { type: 'boolean', optional: true, default: false },
};

type RunBody = { input?: unknown; variables?: Record<string, unknown>; wait: boolean; workspace_id?: string };

/** Commits the run, queues it, and answers 202 {run_id, status} or, with wait, the run once it stops. */
async function launch(svc: WorkflowsService, ctx: Context, definition: DefinitionRow, binding: BindingRow | null, body: RunBody): Promise<unknown> {
  const who = identityOf(ctx);
  if (body.workspace_id && !binding) await openWorkspace(ctx, body.workspace_id);
  const run = newRunOf(definition, { binding, workspace_id: body.workspace_id, owner_id: who.id, trigger_type: 'manual', trigger: body.input ?? null, variables: body.variables });
  const meta = ctx.meta as { $statusCode?: number };
  if (!body.wait) {
    const row = await svc.engine.enqueueRun(run);
    meta.$statusCode = 202;
    return { run_id: row.id, status: row.status };
  }
  const waiting = waitForRun(svc, who.entity_id, run.id, svc.env.WORKFLOW_RUN_WAIT_SECONDS);
  await svc.engine.enqueueRun(run);
  const done = await waiting;
  if (!done || done.status === 'pending' || done.status === 'running') {
    meta.$statusCode = 202;
    return { run_id: run.id, status: done?.status ?? 'pending' };
  }
  return { run_id: run.id, ...runSummary(done) };
}

export const runDefinition: WorkflowsAction = {
  rest: 'POST /:id/run',
  summary: 'Start a run (manual trigger)',
  description: 'Answers 202 `{run_id, status}` once the run is committed and queued. With `wait: true` it answers the run when it finishes or pauses (200), or 202 if that takes longer than WORKFLOW_RUN_WAIT_SECONDS. `{{trigger}}` is `input`.',
  tags: ['workflows'],
  params: { ...ID_PARAM, workspace_id: { type: 'string', max: 64, optional: true }, ...RUN_BODY },
  response: { 200: { type: 'object', properties: { run_id: { type: 'string' }, ...(RUN_SCHEMA.properties as object) } }, 202: RUN_STARTED_SCHEMA },
  async handler(ctx: Context<RunBody & { id: string }>) {
    const definition = await this.definitions.get(identityOf(ctx).entity_id, ctx.params.id);
    return launch(this, ctx, definition, null, ctx.params);
  },
};

export const runBinding: WorkflowsAction = {
  rest: 'POST /bindings/:id/run',
  workspaceOf: bindingWorkspace,
  summary: 'Start a run from a binding',
  description: 'Like POST /{id}/run, with the binding\'s workspace and variables (a run\'s own variables win).',
  tags: ['workflows'],
  params: { ...ID_PARAM, ...RUN_BODY },
  response: { 200: { type: 'object', properties: { run_id: { type: 'string' }, ...(RUN_SCHEMA.properties as object) } }, 202: RUN_STARTED_SCHEMA },
  async handler(ctx: Context<RunBody & { id: string }>) {
    const entityId = identityOf(ctx).entity_id;
    const binding = await this.bindings.get(entityId, ctx.params.id);
    if (!binding.enabled) throw WORKFLOWS_ERR.BINDING_DISABLED(`Binding '${binding.id}' is disabled.`);
    const definition = await this.definitions.get(entityId, binding.workflow_id);
    return launch(this, ctx, definition, binding, ctx.params);
  },
};

export const runStream: WorkflowsAction = {
  rest: 'POST /:id/run-stream',
  summary: 'Start a run and stream its progress (SSE)',
  description: 'A `text/event-stream` of the run\'s events (see the README: run.created, run.started, step.started, step.finished, step.skipped, run.paused, run.finished); it ends when the run finishes or pauses.',
  tags: ['workflows'],
  params: { ...ID_PARAM, workspace_id: { type: 'string', max: 64, optional: true }, input: { type: 'any', optional: true }, variables: { type: 'object', optional: true } },
  response: { 200: { description: 'Server-sent events', contentType: 'text/event-stream', schema: { type: 'string' } } },
  async handler(ctx: Context<RunBody & { id: string }>) {
    const who = identityOf(ctx);
    const definition = await this.definitions.get(who.entity_id, ctx.params.id);
    if (ctx.params.workspace_id) await openWorkspace(ctx, ctx.params.workspace_id);
    const run = newRunOf(definition, { workspace_id: ctx.params.workspace_id, owner_id: who.id, trigger_type: 'manual', trigger: ctx.params.input ?? null, variables: ctx.params.variables });
    const stream = await openRunStream(this, ctx, run.id, 0, { endOnPause: true });
    await this.engine.enqueueRun(run);
    return stream;
  },
};
