import { SCHEDULE_KINDS } from '../../kernel/schedule/schedule.ts';
import { jobContextOf } from '../../kernel/jobs-contract.ts';
import { JOB_SOURCES, OVERLAP_POLICIES, RUN_STATUSES, type JobRow, type RunRow } from './store/types.ts';

const iso = (value: Date | string | null): string | null => (value ? new Date(value).toISOString() : null);

/** attention: enabled, and failing (consecutive failures) or with a missed run not caught up since. */
export function needsAttention(row: Pick<JobRow, 'enabled' | 'consecutive_failures' | 'missed_at'>): boolean {
  return row.enabled && (row.consecutive_failures > 0 || row.missed_at !== null);
}

export function jobView(row: JobRow, nextFireTimes?: Date[]) {
  return {
    id: row.id,
    entity_id: row.entity_id,
    name: row.name,
    description: row.description,
    schedule: {
      kind: row.schedule_kind,
      cron: row.cron,
      timezone: row.timezone,
      every_seconds: row.every_seconds,
      at: iso(row.at),
    },
    executor: row.executor,
    ...jobContextOf(row),
    delete_after_run: row.delete_after_run,
    overlap: row.overlap,
    enabled: row.enabled,
    status: row.enabled ? 'enabled' : 'paused',
    paused_reason: row.paused_reason,
    attention: needsAttention(row),
    consecutive_failures: row.consecutive_failures,
    next_run_at: iso(row.next_run_at),
    last_run_at: iso(row.last_run_at),
    last_run_status: row.last_run_status,
    missed_at: iso(row.missed_at),
    frozen_skill: { status: row.frozen_skill_status, text: row.frozen_skill, error: row.frozen_skill_error },
    source: row.source,
    binding_id: row.binding_id,
    created_by: row.created_by,
    version: row.version,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    ...(nextFireTimes ? { next_fire_times: nextFireTimes.map((d) => d.toISOString()) } : {}),
  };
}

export function runView(row: RunRow) {
  return {
    id: row.id,
    job_id: row.job_id,
    trigger: row.trigger,
    status: row.status,
    caught_up: row.caught_up,
    scheduled_for: iso(row.scheduled_for)!,
    queued_at: iso(row.created_at)!,
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    duration_ms: row.duration_ms,
    attempts: row.attempts,
    usage: row.usage,
    error: row.error,
    detail: row.detail,
    output: row.output ?? null,
    task_id: row.task_id,
    workflow_run_id: row.workflow_run_id,
  };
}

const dateTime = { type: 'string', format: 'date-time' };
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const uuid = { type: 'string', format: 'uuid' };
const str = { type: 'string' };

export const JOB_SCHEMA = {
  type: 'object',
  properties: {
    id: uuid,
    entity_id: str,
    name: { type: 'string', maxLength: 200 },
    description: nullable(str),
    schedule: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: [...SCHEDULE_KINDS] },
        cron: nullable(str),
        timezone: { type: 'string', description: 'IANA zone the cron expression is evaluated in.' },
        every_seconds: nullable({ type: 'integer' }),
        at: nullable(dateTime),
      },
      required: ['kind', 'cron', 'timezone', 'every_seconds', 'at'],
    },
    executor: str,
    payload_message: nullable(str),
    config: { type: 'object' },
    workspace_id: nullable(uuid),
    conversation_id: nullable(uuid),
    agent_id: nullable(uuid),
    goal_id: nullable(uuid),
    deliverables: { type: 'array', items: str, description: 'Workspace file paths a run must leave behind to succeed.' },
    delete_after_run: { type: 'boolean' },
    overlap: { type: 'string', enum: [...OVERLAP_POLICIES] },
    enabled: { type: 'boolean' },
    status: { type: 'string', enum: ['enabled', 'paused'] },
    paused_reason: nullable(str),
    attention: { type: 'boolean', description: 'Enabled, and failing or with a missed run not caught up.' },
    consecutive_failures: { type: 'integer', minimum: 0 },
    next_run_at: nullable(dateTime),
    last_run_at: nullable(dateTime),
    last_run_status: nullable({ type: 'string', enum: [...RUN_STATUSES] }),
    missed_at: nullable(dateTime),
    frozen_skill: {
      type: 'object',
      properties: { status: { type: 'string', enum: ['none', 'pending', 'ready', 'failed'] }, text: nullable(str), error: nullable(str) },
      required: ['status', 'text', 'error'],
    },
    source: { type: 'string', enum: [...JOB_SOURCES] },
    binding_id: nullable(uuid),
    created_by: nullable(str),
    version: { type: 'integer', minimum: 1 },
    created_at: dateTime,
    updated_at: dateTime,
    next_fire_times: { type: 'array', items: dateTime, description: 'Only with `?next=N`.' },
  },
  required: ['id', 'name', 'schedule', 'executor', 'enabled', 'status', 'attention', 'consecutive_failures', 'next_run_at', 'version', 'created_at', 'updated_at'],
};

export const RUN_SCHEMA = {
  type: 'object',
  properties: {
    id: uuid,
    job_id: uuid,
    trigger: { type: 'string', enum: ['schedule', 'run_now', 'catch_up'] },
    status: { type: 'string', enum: [...RUN_STATUSES] },
    caught_up: { type: 'boolean' },
    scheduled_for: dateTime,
    queued_at: dateTime,
    started_at: nullable(dateTime),
    finished_at: nullable(dateTime),
    duration_ms: nullable({ type: 'integer' }),
    attempts: { type: 'integer' },
    usage: nullable({ type: 'object' }),
    error: nullable({ type: 'object' }),
    detail: nullable({ type: 'object' }),
    output: { description: "What the run produced, as its executor answered it (an agent's report, a workflow's output); null until it ends." },
    task_id: nullable(uuid),
    workflow_run_id: nullable(str),
  },
  required: ['id', 'job_id', 'trigger', 'status', 'caught_up', 'scheduled_for', 'queued_at'],
};
