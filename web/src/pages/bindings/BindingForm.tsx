import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../../api/problem';
import { ProblemNote } from '../../ui/states';
import { TRIGGER_TYPES, type BindingFormState } from './binding-form';

interface Props {
  initial: BindingFormState;
  workflows: { id: string; name: string }[];
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit(f: BindingFormState): void;
  onCancel(): void;
}

/** Create or edit a binding; the server's 422 marks each field it names. */
export function BindingForm({ initial, workflows, submitLabel, busy, error, onSubmit, onCancel }: Props): ReactNode {
  const [f, setF] = useState(initial);
  const set = <K extends keyof BindingFormState>(key: K, value: BindingFormState[K]) => setF((prev) => ({ ...prev, [key]: value }));
  const named = new Set(error instanceof ApiError ? (error.problem.errors ?? []).map((e) => e.field) : []);
  const invalid = (...fields: string[]) => fields.some((x) => named.has(x));
  const id = useId();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(f);
  };
  return (
    <form className="form card" onSubmit={submit} aria-label={submitLabel === 'Create binding' ? 'New binding' : 'Edit binding'} noValidate>
      <label htmlFor={`${id}-wf`}>Workflow</label>
      <select id={`${id}-wf`} value={f.workflow_id} aria-invalid={invalid('workflow_id')} onChange={(e) => set('workflow_id', e.target.value)}>
        <option value="">Choose a workflow</option>
        {workflows.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
      </select>
      <label htmlFor={`${id}-trigger`}>Trigger</label>
      <select id={`${id}-trigger`} value={f.trigger} aria-invalid={invalid('trigger', 'trigger.type')} onChange={(e) => set('trigger', e.target.value as BindingFormState['trigger'])}>
        {TRIGGER_TYPES.map((t) => <option key={t} value={t}>{t.replace('_', ' ')}</option>)}
      </select>
      {(f.trigger === 'event' || f.trigger === 'workspace_event') && (
        <>
          <label htmlFor={`${id}-event`}>Event name</label>
          <input id={`${id}-event`} value={f.event} aria-invalid={invalid('trigger.event')} onChange={(e) => set('event', e.target.value)} />
        </>
      )}
      {f.trigger === 'schedule' && (
        <>
          <label htmlFor={`${id}-cron`}>Cron (5 fields)</label>
          <input id={`${id}-cron`} className="mono" value={f.schedule} aria-invalid={invalid('trigger.schedule')} onChange={(e) => set('schedule', e.target.value)} />
          <label htmlFor={`${id}-tz`}>Time zone</label>
          <input id={`${id}-tz`} value={f.timezone} aria-invalid={invalid('trigger.timezone')} onChange={(e) => set('timezone', e.target.value)} />
        </>
      )}
      {f.trigger === 'webhook' && <p className="muted">A webhook URL with a secret token is shown once after saving.</p>}
      <label htmlFor={`${id}-vars`}>Variables (JSON)</label>
      <textarea id={`${id}-vars`} className="mono" rows={3} value={f.variables} aria-invalid={invalid('variables')} onChange={(e) => set('variables', e.target.value)} />
      <label className="inline"><input type="checkbox" checked={f.enabled} onChange={(e) => set('enabled', e.target.checked)} /> Enabled</label>
      <label className="inline"><input type="checkbox" checked={f.chat_entrypoint} onChange={(e) => set('chat_entrypoint', e.target.checked)} /> Offer in chat</label>
      <ProblemNote error={error} />
      <div className="actions">
        <button type="submit" disabled={busy}>{submitLabel}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
