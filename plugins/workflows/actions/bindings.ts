import type { Context } from 'moleculer';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { cronScheduleProblems } from '../../../kernel/schedule/schedule.ts';
import { entityOf, identityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { bindingView, newWebhookToken, type BindingInput, type BindingRow } from '../store/bindings.ts';
import { BINDING_SCHEMA, ID_PARAM } from '../schemas.ts';
import { WORKFLOWS_ERR } from '../errors.ts';
import type { WorkflowsAction, WorkflowsService } from '../service.ts';
import { bindingWorkspace } from '../workspace-of.ts';
import { openWorkspace } from '../../../kernel/workspace-state.ts';

const TRIGGER_PARAM = [
  { type: 'enum', values: ['manual', 'webhook', 'schedule', 'event', 'workspace_event'] },
  {
    type: 'object',
    props: {
      type: { type: 'enum', values: ['manual', 'webhook', 'schedule', 'event', 'workspace_event'] },
      event: { type: 'string', min: 1, max: 200, optional: true },
      schedule: { type: 'string', min: 1, max: 200, optional: true },
      timezone: { type: 'string', min: 1, max: 64, optional: true },
    },
  },
];

const BINDING_FIELDS = {
  workflow_id: { type: 'string', min: 1, max: 64 },
  workspace_id: { type: 'string', min: 1, max: 64 },
  trigger: TRIGGER_PARAM,
  variables: { type: 'object', optional: true },
  enabled: { type: 'boolean', optional: true },
  chat_entrypoint: { type: 'boolean', optional: true },
};

type TriggerParam = BindingInput['trigger'] | BindingInput['trigger']['type'];

function normaliseTrigger(t: TriggerParam): BindingInput['trigger'] {
  const trigger = typeof t === 'string' ? { type: t } : t;
  if ((trigger.type === 'event' || trigger.type === 'workspace_event') && !trigger.event) {
    throw ERRORS.VALIDATION_FAILED('An event trigger names its event.', [{ field: 'trigger.event', message: "The 'trigger.event' field is required for event and workspace_event triggers.", type: 'required' }]);
  }
  if (trigger.type === 'schedule' && !trigger.schedule) {
    throw ERRORS.VALIDATION_FAILED('A schedule trigger needs its schedule.', [{ field: 'trigger.schedule', message: "The 'trigger.schedule' field is required for schedule triggers.", type: 'required' }]);
  }
  if (trigger.type === 'schedule') {
    // the scheduler fires it like a job (cron in the zone's wall-clock time): refused here as a job would be
    const problems = cronScheduleProblems(String(trigger.schedule), typeof trigger.timezone === 'string' ? trigger.timezone : 'UTC', 'trigger.').map((p) => (p.field === 'trigger.cron' ? { ...p, field: 'trigger.schedule', message: p.message.replace(/'trigger\.cron'/, "'trigger.schedule'") } : p));
    if (problems.length) throw ERRORS.VALIDATION_FAILED('The schedule trigger is not valid.', problems);
  }
  return trigger;
}

/** 409 when the binding would be a second enabled chat entrypoint of its workspace. */
async function checkChatEntrypoint(svc: WorkflowsService, entityId: string, input: BindingInput, id: string | null): Promise<void> {
  if (!input.chat_entrypoint || input.enabled === false) return;
  const other = await svc.bindings.otherChatEntrypoint(entityId, input.workspace_id.toLowerCase(), id);
  if (other) throw WORKFLOWS_ERR.CHAT_ENTRYPOINT_TAKEN(`Binding '${other}' is already the chat entrypoint of this workspace; disable it or clear its chat_entrypoint first.`, { binding_id: other });
}

/** 404 unless the workflow and the workspace both belong to the caller's entity; 409 for an archived workspace. */
async function checkTargets(svc: WorkflowsService, ctx: Context, workflowId: string, workspaceId: string): Promise<void> {
  await svc.definitions.get(entityOf(ctx), workflowId);
  await openWorkspace(ctx, workspaceId);
}

function withToken(svc: WorkflowsService, row: BindingRow, token: string | null): Record<string, unknown> {
  const view = bindingView(row);
  if (!token) return view;
  return { ...view, webhook_token: token, webhook_url: `${svc.env.PUBLIC_BASE_URL.replace(/\/$/, '')}/api/v1/workflows/webhook/${token}` };
}

export const listBindings: WorkflowsAction = {
  rest: 'GET /bindings',
  summary: 'List workflow bindings',
  tags: ['workflows'],
  params: { ...PAGING_PARAMS, workspace_id: { type: 'string', max: 64, optional: true }, workflow_id: { type: 'string', max: 64, optional: true } },
  response: pageSchema(BINDING_SCHEMA),
  async handler(ctx: Context<{ limit: number; offset: number; workspace_id?: string; workflow_id?: string }>) {
    const { limit, offset, ...filter } = ctx.params;
    const page = await this.bindings.list(entityOf(ctx), filter, limit, offset);
    return { items: page.items.map(bindingView), total: page.total, limit, offset };
  },
};

export const createBinding: WorkflowsAction = {
  rest: 'POST /bindings',
  summary: 'Deploy a workflow into a workspace with a trigger',
  description: 'A webhook binding gets a random secret token (256 bits, stored hashed); the response carries `webhook_token` and `webhook_url` once. `chat_entrypoint: true` makes it the workspace\'s chat entrypoint (one enabled per workspace, else 409).',
  tags: ['workflows'],
  params: { ...BINDING_FIELDS },
  response: { 201: BINDING_SCHEMA },
  async handler(ctx: Context<BindingInput & { trigger: TriggerParam }>) {
    const who = identityOf(ctx);
    const input = { ...ctx.params, trigger: normaliseTrigger(ctx.params.trigger) };
    await checkTargets(this, ctx, input.workflow_id, input.workspace_id);
    await checkChatEntrypoint(this, who.entity_id, input, null);
    const token = input.trigger.type === 'webhook' ? newWebhookToken() : null;
    const row = await this.bindings.create(who.entity_id, who.id, input, token?.hash ?? null);
    this.broker.broadcast('workflows.bindings.changed', { entity_id: who.entity_id, binding_id: row.id });
    (ctx.meta as { $statusCode?: number }).$statusCode = 201;
    return withToken(this, row, token?.token ?? null);
  },
};

export const updateBinding: WorkflowsAction = {
  rest: 'PUT /bindings/:id',
  workspaceOf: bindingWorkspace,
  summary: 'Update a binding; rotate its webhook token',
  description: '`rotate_webhook_token: true` issues a new token (the old one stops working at once); the response then carries the new `webhook_token` and `webhook_url`.',
  tags: ['workflows'],
  params: {
    ...ID_PARAM,
    ...Object.fromEntries(Object.entries(BINDING_FIELDS).map(([k, v]) => [k, Array.isArray(v) ? v.map((r) => ({ ...r, optional: true })) : { ...v, optional: true }])),
    rotate_webhook_token: { type: 'boolean', optional: true },
  },
  response: BINDING_SCHEMA,
  async handler(ctx: Context<Partial<BindingInput> & { id: string; trigger?: TriggerParam; rotate_webhook_token?: boolean }>) {
    const entityId = entityOf(ctx);
    const current = await this.bindings.get(entityId, ctx.params.id);
    const trigger = ctx.params.trigger !== undefined ? normaliseTrigger(ctx.params.trigger) : { ...current.trigger, type: current.trigger_type };
    const next: BindingInput = {
      workflow_id: ctx.params.workflow_id ?? current.workflow_id,
      workspace_id: ctx.params.workspace_id ?? current.workspace_id,
      trigger,
      variables: ctx.params.variables ?? current.variables,
      enabled: ctx.params.enabled ?? current.enabled,
      chat_entrypoint: ctx.params.chat_entrypoint ?? current.chat_entrypoint,
    };
    if (next.workflow_id !== current.workflow_id || next.workspace_id !== current.workspace_id) await checkTargets(this, ctx, next.workflow_id, next.workspace_id);
    await checkChatEntrypoint(this, entityId, next, current.id);
    let token: { token: string; hash: string } | null = null;
    let hash = current.webhook_token_hash;
    if (trigger.type !== 'webhook') hash = null;
    else if (ctx.params.rotate_webhook_token || !hash) {
      token = newWebhookToken();
      hash = token.hash;
    }
    const row = await this.bindings.update(entityId, current.id, next, hash);
    this.broker.broadcast('workflows.bindings.changed', { entity_id: entityId, binding_id: row.id });
    return withToken(this, row, token?.token ?? null);
  },
};

export const removeBinding: WorkflowsAction = {
  rest: 'DELETE /bindings/:id',
  workspaceOf: bindingWorkspace,
  summary: 'Delete a binding',
  tags: ['workflows'],
  params: { ...ID_PARAM },
  async handler(ctx: Context<{ id: string }>) {
    await this.bindings.remove(entityOf(ctx), ctx.params.id);
    this.broker.broadcast('workflows.bindings.changed', { entity_id: entityOf(ctx), binding_id: ctx.params.id.toLowerCase() });
  },
};
