import { useId, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ApiError } from '../../api/problem';
import { useWorkspaces } from '../../hooks/queries';
import { ProblemNote } from '../../ui/states';
import { fieldErrors, formatInZone, scheduleOf, type JobFormState } from './job-form';
import { useSchedulePreview } from './use-schedule-preview';

interface Props {
  initial: JobFormState;
  submitLabel: string;
  busy: boolean;
  /** the save's error: its 422 is shown at each field it names */
  error: unknown;
  onSubmit(form: JobFormState): void;
  onCancel(): void;
}

/** Create or edit a scheduled job: the next fire times are previewed by the server while the schedule is typed. */
export function JobForm({ initial, submitLabel, busy, error, onSubmit, onCancel }: Props): ReactNode {
  const [f, setF] = useState(initial);
  const set = <K extends keyof JobFormState>(key: K, value: JobFormState[K]) => setF((prev) => ({ ...prev, [key]: value }));
  const saveErrors = fieldErrors(error);
  const executors = useQuery({ queryKey: ['jobs', 'executors'], queryFn: () => unwrap(api.GET('/api/v1/jobs/executors')), refetchInterval: 10_000 });
  const workspaces = useWorkspaces();
  const agents = useQuery({ queryKey: ['agents', 'for-jobs', f.workspace_id], queryFn: () => unwrap(api.GET('/api/v1/agents', { params: { query: { limit: 200, ...(f.workspace_id ? { workspace_id: f.workspace_id } : {}) } } })) });
  const zones = useMemo(() => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []), []);
  const executor = executors.data?.items.find((e) => e.name === f.executor);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(f);
  };
  const errs = (field: string) => saveErrors.byField[field] ?? [];
  return (
    <form className="form card job-form" onSubmit={submit} aria-label={submitLabel === 'Create job' ? 'New job' : 'Edit job'} noValidate>
      <Field label="Name" errors={errs('name')}>
        {(props) => <input {...props} value={f.name} onChange={(e) => set('name', e.target.value)} maxLength={200} />}
      </Field>
      <Field label="Description" errors={errs('description')}>
        {(props) => <textarea {...props} value={f.description} onChange={(e) => set('description', e.target.value)} />}
      </Field>
      <fieldset className="schedule">
        <legend>Schedule</legend>
        <div className="actions" role="radiogroup" aria-label="Schedule kind">
          {(['cron', 'every', 'at'] as const).map((k) => (
            <label key={k} className="inline">
              <input type="radio" name="kind" value={k} checked={f.kind === k} onChange={() => set('kind', k)} /> {KIND_LABEL[k]}
            </label>
          ))}
        </div>
        <ScheduleFields f={f} set={set} zones={zones} errs={errs} />
        <SchedulePreview f={f} />
      </fieldset>
      <Field label="Executor" errors={errs('executor')} hint={executor?.description}>
        {(props) => (
          <select {...props} value={f.executor} onChange={(e) => set('executor', e.target.value)}>
            {!executor && <option value={f.executor}>{f.executor}{executors.data ? ' (not loaded)' : ''}</option>}
            {executors.data?.items.map((x) => <option key={x.name} value={x.name}>{x.name}</option>)}
          </select>
        )}
      </Field>
      <Field label={executor?.needs_prompt === false ? 'Message (optional)' : 'Message (what to do)'} errors={errs('payload_message')}>
        {(props) => <textarea {...props} value={f.payload_message} onChange={(e) => set('payload_message', e.target.value)} rows={4} />}
      </Field>
      <Field label="Workspace" errors={errs('workspace_id')}>
        {(props) => (
          <select {...props} value={f.workspace_id} onChange={(e) => set('workspace_id', e.target.value)}>
            <option value="">None</option>
            {workspaces.data?.items.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
          </select>
        )}
      </Field>
      <Field label="Agent" errors={errs('agent_id')}>
        {(props) => (
          <select {...props} value={f.agent_id} onChange={(e) => set('agent_id', e.target.value)}>
            <option value="">Default agent</option>
            {f.agent_id && !agents.data?.items.some((a) => a.id === f.agent_id) && <option value={f.agent_id}>{f.agent_id}</option>}
            {agents.data?.items.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
          </select>
        )}
      </Field>
      <Field label="Goal id (optional)" errors={errs('goal_id')}>
        {(props) => <input {...props} value={f.goal_id} onChange={(e) => set('goal_id', e.target.value)} />}
      </Field>
      {(executor?.config || f.config.trim() !== '{}') && (
        <Field label="Executor config (JSON)" errors={errs('config')}>
          {(props) => <textarea {...props} className="mono" value={f.config} onChange={(e) => set('config', e.target.value)} rows={4} />}
        </Field>
      )}
      <Field label="When a run is still going" errors={errs('overlap')}>
        {(props) => (
          <select {...props} value={f.overlap} onChange={(e) => set('overlap', e.target.value as JobFormState['overlap'])}>
            <option value="skip">skip the new fire</option>
            <option value="queue">queue it behind</option>
          </select>
        )}
      </Field>
      <label className="inline"><input type="checkbox" checked={f.enabled} onChange={(e) => set('enabled', e.target.checked)} /> Enabled</label>
      {f.kind === 'at' && (
        <label className="inline"><input type="checkbox" checked={f.delete_after_run} onChange={(e) => set('delete_after_run', e.target.checked)} /> Delete the job once its run is logged</label>
      )}
      {saveErrors.other.length > 0 && <ul className="problem-note">{saveErrors.other.map((m) => <li key={m}>{m}</li>)}</ul>}
      <ProblemNote error={error instanceof ApiError && error.problem.errors?.length ? null : error} />
      {error instanceof ApiError && error.problem.errors?.length ? <p className="problem-note" role="alert">Not saved: {error.problem.title}. See the fields marked above.</p> : null}
      <div className="actions">
        <button type="submit" disabled={busy}>{submitLabel}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

const KIND_LABEL = { cron: 'Cron expression', every: 'Fixed interval', at: 'Once' } as const;

type Setter = <K extends keyof JobFormState>(key: K, value: JobFormState[K]) => void;

function ScheduleFields({ f, set, zones, errs }: { f: JobFormState; set: Setter; zones: string[]; errs(field: string): string[] }): ReactNode {
  const preview = useSchedulePreview(scheduleOf(f));
  // the preview's 422 names the same fields a save would: shown at the field as it is typed
  const live = fieldErrors(preview.error).byField;
  const both = (field: string) => [...new Set([...(live[field] ?? []), ...errs(field)])];
  const listId = useId();
  return (
    <>
      {f.kind === 'cron' && (
        <Field label="Cron (minute hour day-of-month month day-of-week)" errors={both('schedule.cron')} hint="5 fields: *, lists 1,2, ranges 1-5, steps */15; day-of-week 0 = Sunday.">
          {(props) => <input {...props} className="mono" value={f.cron} onChange={(e) => set('cron', e.target.value)} spellCheck={false} autoComplete="off" />}
        </Field>
      )}
      {f.kind === 'every' && (
        <Field label="Every (seconds, at least 60)" errors={both('schedule.every_seconds')}>
          {(props) => <input {...props} type="number" min={60} step={60} value={f.every_seconds} onChange={(e) => set('every_seconds', e.target.value)} />}
        </Field>
      )}
      {f.kind === 'at' && (
        <Field label="At (wall-clock time in the zone)" errors={both('schedule.at')}>
          {(props) => <input {...props} type="datetime-local" value={f.at} onChange={(e) => set('at', e.target.value)} />}
        </Field>
      )}
      {f.kind !== 'every' && (
        <Field label="Time zone" errors={both('schedule.timezone')}>
          {(props) => <input {...props} list={listId} value={f.timezone} onChange={(e) => set('timezone', e.target.value)} autoComplete="off" />}
        </Field>
      )}
      <datalist id={listId}>{zones.map((z) => <option key={z} value={z} />)}</datalist>
    </>
  );
}

function SchedulePreview({ f }: { f: JobFormState }): ReactNode {
  const schedule = scheduleOf(f);
  const preview = useSchedulePreview(schedule);
  return (
    <section className="preview" aria-live="polite" aria-label="Next fire times">
      <h3>Next fire times</h3>
      {preview.isFetching && !preview.data && <p className="muted">Checking…</p>}
      {preview.isError && !(preview.error instanceof ApiError && preview.error.status === 422) && <ProblemNote error={preview.error} />}
      {preview.isError && preview.error instanceof ApiError && preview.error.status === 422 && <p className="muted">Fix the schedule to see when it fires.</p>}
      {preview.data && !preview.isError && (
        preview.data.next_fire_times.length === 0 ? <p className="muted">It never fires again.</p> : (
          <ol className="fire-times">
            {preview.data.next_fire_times.map((at) => (
              <li key={at}><time dateTime={at}>{formatInZone(at, preview.data.timezone)}</time>{preview.data.timezone !== localZone ? <span className="muted"> · {new Date(at).toLocaleString()} here</span> : null}</li>
            ))}
          </ol>
        )
      )}
    </section>
  );
}

const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

interface FieldProps {
  id: string;
  'aria-invalid': boolean;
  'aria-describedby'?: string;
}

/** A labelled control with its hint and its errors, tied to it for screen readers. */
function Field({ label, errors, hint, children }: { label: string; errors: string[]; hint?: string; children(props: FieldProps): ReactNode }): ReactNode {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', errors.length ? `${id}-err` : ''].filter(Boolean).join(' ');
  return (
    <div className={errors.length ? 'field field-invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': errors.length > 0, ...(described ? { 'aria-describedby': described } : {}) })}
      {hint && <small id={`${id}-hint`} className="muted">{hint}</small>}
      {errors.length > 0 && (
        <div id={`${id}-err`} role="alert">
          <ul className="field-errors">{errors.map((m) => <li key={m}>{m}</li>)}</ul>
        </div>
      )}
    </div>
  );
}
