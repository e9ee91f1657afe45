import { ApiError } from '../../api/problem';
import type { ResponseOf } from '../../api/client';

export type Job = ResponseOf<'/api/v1/jobs/{job_id}', 'get'>;
export type ScheduleKind = 'cron' | 'every' | 'at';

/** The job form as typed: strings as inputs hold them, turned into the API body by `toJobBody`. */
export interface JobFormState {
  name: string;
  description: string;
  kind: ScheduleKind;
  cron: string;
  timezone: string;
  every_seconds: string;
  /** `datetime-local` text: wall-clock time in `timezone` (the API reads an instant without offset so) */
  at: string;
  executor: string;
  payload_message: string;
  workspace_id: string;
  agent_id: string;
  goal_id: string;
  overlap: 'skip' | 'queue';
  enabled: boolean;
  delete_after_run: boolean;
  /** JSON text of the executor's `config` */
  config: string;
}

export interface SchedulePayload {
  kind: ScheduleKind;
  cron?: string;
  timezone: string;
  every_seconds?: number;
  at?: string;
}

export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function emptyForm(zone = browserZone()): JobFormState {
  return { name: '', description: '', kind: 'cron', cron: '0 9 * * 1-5', timezone: zone, every_seconds: '3600', at: '', executor: 'agent', payload_message: '', workspace_id: '', agent_id: '', goal_id: '', overlap: 'skip', enabled: true, delete_after_run: false, config: '{}' };
}

/** An instant shown as `datetime-local` text in `zone` (the form edits wall-clock time of the job's zone). */
export function toLocalInput(iso: string, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(iso));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}`;
}

export function fromJob(job: Job): JobFormState {
  const s = job.schedule;
  return {
    name: job.name,
    description: job.description ?? '',
    kind: s.kind,
    cron: s.cron ?? '',
    timezone: s.timezone,
    every_seconds: s.every_seconds != null ? String(s.every_seconds) : '3600',
    at: s.at ? toLocalInput(s.at, s.timezone) : '',
    executor: job.executor,
    payload_message: job.payload_message ?? '',
    workspace_id: job.workspace_id ?? '',
    agent_id: job.agent_id ?? '',
    goal_id: job.goal_id ?? '',
    overlap: job.overlap ?? 'skip',
    enabled: job.enabled,
    delete_after_run: job.delete_after_run ?? false,
    config: JSON.stringify(job.config ?? {}, null, 2),
  };
}

/** The `schedule` object of the API: only the fields of its kind (a field of another kind is a 422). */
export function scheduleOf(f: Pick<JobFormState, 'kind' | 'cron' | 'timezone' | 'every_seconds' | 'at'>): SchedulePayload {
  const timezone = f.timezone.trim() || 'UTC';
  if (f.kind === 'cron') return { kind: 'cron', cron: f.cron.trim(), timezone };
  // not a number stays a value the server names (schedule.every_seconds), never silently 0
  if (f.kind === 'every') return { kind: 'every', timezone, every_seconds: f.every_seconds.trim() === '' ? undefined : Number(f.every_seconds) };
  return { kind: 'at', timezone, at: f.at };
}

/** A schedule worth asking the server about (it answers the rest with a 422 naming the field). */
export function isPreviewable(s: SchedulePayload): boolean {
  if (s.kind === 'cron') return (s.cron ?? '').length > 0;
  if (s.kind === 'every') return s.every_seconds !== undefined && Number.isFinite(s.every_seconds);
  return (s.at ?? '').length >= 16;
}

export class ConfigJsonError extends Error {}

/** The body of POST/PUT /api/v1/jobs. Empty links are null; the config must be a JSON object. */
export function toJobBody(f: JobFormState) {
  let config: unknown;
  try {
    config = JSON.parse(f.config.trim() || '{}');
  } catch (err) {
    throw new ConfigJsonError(`config is not JSON: ${(err as Error).message}`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new ConfigJsonError('config must be a JSON object, such as {}');
  const link = (v: string) => (v.trim() ? v.trim() : null);
  return {
    name: f.name,
    description: f.description || null,
    schedule: scheduleOf(f),
    executor: f.executor,
    payload_message: f.payload_message || null,
    workspace_id: link(f.workspace_id),
    agent_id: link(f.agent_id),
    goal_id: link(f.goal_id),
    overlap: f.overlap,
    enabled: f.enabled,
    delete_after_run: f.kind === 'at' ? f.delete_after_run : false,
    config: config as Record<string, never>,
  };
}

/** A problem's field messages by form field: `schedule.cron` stays `schedule.cron`, `deliverables[0]` and `config/x` go to their field. */
export function fieldErrors(error: unknown): { byField: Record<string, string[]>; other: string[] } {
  const byField: Record<string, string[]> = {};
  const other: string[] = [];
  if (!(error instanceof ApiError)) return { byField, other };
  for (const p of error.problem.errors ?? []) {
    // schedule.* fields have their own inputs; anything deeper (deliverables[0], config.binding_id, config/mode) goes to its top field
    const field = p.field.startsWith('schedule.') ? p.field : (p.field.split(/[.[/]/)[0] ?? p.field);
    if (field) (byField[field] ??= []).push(p.message);
    else other.push(p.message);
  }
  return { byField, other };
}

/** A schedule in words for lists: "cron 0 9 * * 1-5 (Europe/Berlin)", "every 1 h", "once at …". */
export function describeSchedule(s: Job['schedule']): string {
  if (s.kind === 'cron') return `cron ${s.cron} (${s.timezone})`;
  if (s.kind === 'every') return `every ${formatSeconds(s.every_seconds ?? 0)}`;
  return s.at ? `once at ${formatInZone(s.at, s.timezone)} (${s.timezone})` : 'once';
}

export function formatSeconds(total: number): string {
  const units: [number, string][] = [[86_400, 'd'], [3_600, 'h'], [60, 'min'], [1, 's']];
  const parts: string[] = [];
  let rest = total;
  for (const [size, name] of units) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
  }
  return parts.join(' ') || '0 s';
}

export function formatInZone(iso: string, zone: string): string {
  try {
    return new Intl.DateTimeFormat(undefined, { timeZone: zone, weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(new Date(iso));
  } catch {
    return new Date(iso).toISOString();
  }
}
