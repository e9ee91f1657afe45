import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { newRunOf } from '../run-launch.ts';
import type { WorkflowsAction, WorkflowsService } from '../service.ts';
import { isArchived, openWorkspace } from '../../../kernel/workspace-state.ts';

/** Names the platform's own events must not be routed back as (the engine's own, the broker's). */
export function routable(eventName: string): boolean {
  return !eventName.startsWith('$') && !eventName.startsWith('workflows.');
}

/**
 * Starts a run of every enabled binding of the entity whose trigger is `event` (any workspace)
 * or `workspace_event` (that workspace only) and names this event (`*` or a `prefix.*` also
 * match), except in an archived workspace. Each run is committed before its id is queued.
 */
export async function routeEvent(svc: WorkflowsService, entityId: string, event: string, workspaceId: string | null, payload: unknown, ownerId: string | null): Promise<{ run_id: string; binding_id: string; workflow_id: string }[]> {
  const bindings = await svc.bindings.forEvent(entityId, event, workspaceId);
  const started: { run_id: string; binding_id: string; workflow_id: string }[] = [];
  for (const binding of bindings) {
    if (await isArchived(svc.broker, entityId, binding.workspace_id)) continue;
    const run = newRunOf(binding.definition, { binding, owner_id: binding.created_by ?? ownerId, trigger_type: binding.trigger_type, trigger: { event, workspace_id: workspaceId, payload: payload ?? null } });
    const row = await svc.engine.enqueueRun(run);
    started.push({ run_id: row.id, binding_id: binding.id, workflow_id: binding.workflow_id });
  }
  return started;
}

export const triggerEvent: WorkflowsAction = {
  rest: 'POST /trigger',
  summary: 'Route a platform event to matching enabled bindings',
  description: 'Starts a run of every enabled binding with trigger `event` naming this event, and of every `workspace_event` binding of the given workspace. `{{trigger}}` is `{event, workspace_id, payload}`. Platform events emitted on the broker (with an `entity_id`) are routed the same way.',
  tags: ['workflows'],
  params: { event: { type: 'string', min: 1, max: 200 }, workspace_id: { type: 'string', max: 64, optional: true }, payload: { type: 'any', optional: true } },
  response: {
    202: {
      type: 'object',
      properties: { event: { type: 'string' }, runs: { type: 'array', items: { type: 'object', properties: { run_id: { type: 'string' }, binding_id: { type: 'string' }, workflow_id: { type: 'string' } } } } },
      required: ['event', 'runs'],
    },
  },
  async handler(ctx: Context<{ event: string; workspace_id?: string; payload?: unknown }>) {
    const who = identityOf(ctx);
    if (ctx.params.workspace_id) await openWorkspace(ctx, ctx.params.workspace_id);
    const runs = await routeEvent(this, who.entity_id, ctx.params.event, ctx.params.workspace_id ?? null, ctx.params.payload, who.id);
    (ctx.meta as { $statusCode?: number }).$statusCode = 202;
    return { event: ctx.params.event, runs };
  },
};
