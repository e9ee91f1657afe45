import type { ScheduleBinding } from '../../../kernel/jobs-contract.ts';
import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import { newRunOf } from '../run-launch.ts';
import type { BindingRow } from '../store/bindings.ts';
import type { WorkflowsAction } from '../service.ts';

function scheduleBinding(row: BindingRow): ScheduleBinding {
  const trigger = row.trigger ?? {};
  return {
    id: row.id,
    entity_id: row.entity_id,
    workflow_id: row.workflow_id,
    workspace_id: row.workspace_id,
    enabled: row.enabled,
    cron: typeof trigger.schedule === 'string' ? trigger.schedule : null,
    timezone: typeof trigger.timezone === 'string' ? trigger.timezone : 'UTC',
    created_by: row.created_by,
  };
}

/**
 * `workflows.scheduleBindings` (internal, for the scheduler): the bindings with trigger
 * `schedule` of every entity, or the one named (`binding_id`; an empty list when it is gone
 * or no longer a schedule binding).
 */
export const scheduleBindings: WorkflowsAction = {
  visibility: 'public',
  params: { $$strict: true, binding_id: { type: 'uuid', optional: true } },
  async handler(ctx: Context<{ binding_id?: string }>) {
    const rows = ctx.params.binding_id
      ? await this.sql.rows<BindingRow>(`SELECT * FROM workflow_bindings WHERE id = $1 AND trigger_type = 'schedule'`, [ctx.params.binding_id])
      : await this.sql.rows<BindingRow>(`SELECT * FROM workflow_bindings WHERE trigger_type = 'schedule' ORDER BY id`);
    return rows.map(scheduleBinding);
  },
};

/** `workflows.bindingInfo` (internal): one of the caller's bindings, else 404. */
export const bindingInfo: WorkflowsAction = {
  visibility: 'public',
  params: { $$strict: true, binding_id: { type: 'string', min: 1, max: 64 } },
  async handler(ctx: Context<{ binding_id: string }>) {
    const row = await this.bindings.get(identityOf(ctx).entity_id, ctx.params.binding_id);
    return { ...scheduleBinding(row), trigger_type: row.trigger_type };
  },
};

/**
 * `workflows.startScheduledRun` (internal, the `workflow` job executor): a run of one of the
 * caller's bindings with trigger type `schedule`; `{{trigger}}` is `{scheduled_for, job_id,
 * job_run_id}`. Its end is announced like an agent run's (`workflows.run.settled`).
 */
export const startScheduledRun: WorkflowsAction = {
  visibility: 'public',
  params: { $$strict: true, binding_id: { type: 'string', min: 1, max: 64 }, scheduled_for: { type: 'string', max: 64 }, job_id: { type: 'string', max: 64 }, job_run_id: { type: 'string', max: 64 } },
  async handler(ctx: Context<{ binding_id: string; scheduled_for: string; job_id: string; job_run_id: string }>) {
    const who = identityOf(ctx);
    const binding = await this.bindings.get(who.entity_id, ctx.params.binding_id);
    if (!binding.enabled) throw WORKFLOWS_ERR.BINDING_DISABLED(`Binding '${binding.id}' is disabled.`);
    const definition = await this.definitions.get(who.entity_id, binding.workflow_id);
    const { binding_id: _b, ...trigger } = ctx.params;
    void _b;
    const run = newRunOf(definition, { binding, owner_id: who.id ?? binding.created_by, trigger_type: 'schedule', trigger });
    const row = await this.engine.enqueueRun(run);
    return { run_id: row.id, status: row.status };
  },
};
