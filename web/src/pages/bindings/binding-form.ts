import type { ResponseOf } from '../../api/client';

export type Binding = ResponseOf<'/api/v1/workflows/bindings/{id}', 'put'>;
export const TRIGGER_TYPES = ['manual', 'webhook', 'schedule', 'event', 'workspace_event'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** The binding form as typed; `toBindingBody` makes the API body. */
export interface BindingFormState {
  workflow_id: string;
  trigger: TriggerType;
  event: string;
  schedule: string;
  timezone: string;
  /** JSON text of `variables` */
  variables: string;
  enabled: boolean;
  chat_entrypoint: boolean;
}

type TriggerOut = { type: TriggerType; event?: string; schedule?: string; timezone?: string };

export function emptyBinding(zone: string): BindingFormState {
  return { workflow_id: '', trigger: 'manual', event: '', schedule: '0 9 * * 1-5', timezone: zone, variables: '{}', enabled: true, chat_entrypoint: false };
}

export function triggerOf(b: Pick<Binding, 'trigger'>): TriggerOut {
  return b.trigger as TriggerOut;
}

export function fromBinding(b: Binding): BindingFormState {
  const t = triggerOf(b);
  return { workflow_id: b.workflow_id, trigger: t.type, event: t.event ?? '', schedule: t.schedule ?? '', timezone: t.timezone ?? 'UTC', variables: JSON.stringify(b.variables ?? {}, null, 2), enabled: b.enabled, chat_entrypoint: b.chat_entrypoint };
}

export class VariablesJsonError extends Error {}

/** The body of POST/PUT /workflows/bindings: only the trigger fields of its type. */
export function toBindingBody(f: BindingFormState, workspaceId: string) {
  let variables: unknown;
  try {
    variables = JSON.parse(f.variables.trim() || '{}');
  } catch (err) {
    throw new VariablesJsonError(`variables is not JSON: ${(err as Error).message}`);
  }
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) throw new VariablesJsonError('variables must be a JSON object, such as {}');
  const trigger: TriggerOut = { type: f.trigger };
  if (f.trigger === 'event' || f.trigger === 'workspace_event') trigger.event = f.event.trim();
  if (f.trigger === 'schedule') Object.assign(trigger, { schedule: f.schedule.trim(), timezone: f.timezone.trim() || 'UTC' });
  return { workflow_id: f.workflow_id, workspace_id: workspaceId, trigger, variables: variables as Record<string, never>, enabled: f.enabled, chat_entrypoint: f.chat_entrypoint };
}

export function describeTrigger(b: Pick<Binding, 'trigger'>): string {
  const t = triggerOf(b);
  if (t.type === 'schedule') return `schedule ${t.schedule ?? ''} (${t.timezone ?? 'UTC'})`;
  if (t.type === 'event' || t.type === 'workspace_event') return `${t.type === 'event' ? 'event' : 'workspace event'} ${t.event ?? ''}`;
  return t.type;
}
