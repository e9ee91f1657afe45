import type { Schedule, ScheduleKind } from '../../../kernel/schedule/schedule.ts';
import type { JobContext } from '../../../kernel/jobs-contract.ts';

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'missed', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type RunTrigger = 'schedule' | 'run_now' | 'catch_up';
export const OVERLAP_POLICIES = ['skip', 'queue'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
export const JOB_SOURCES = ['api', 'tool', 'binding'] as const;
export type JobSource = (typeof JOB_SOURCES)[number];
export type FrozenSkillStatus = 'none' | 'pending' | 'ready' | 'failed';

/** The values a job is saved with (create and update alike). */
export interface JobValues extends JobContext {
  name: string;
  description: string | null;
  schedule_kind: ScheduleKind;
  cron: string | null;
  timezone: string;
  every_seconds: number | null;
  anchor_at: Date;
  at: Date | null;
  delete_after_run: boolean;
  executor: string;
  overlap: OverlapPolicy;
  enabled: boolean;
}

export interface JobRow extends JobValues {
  id: string;
  entity_id: string;
  paused_reason: string | null;
  consecutive_failures: number;
  next_run_at: Date | null;
  last_run_at: Date | null;
  last_run_status: RunStatus | null;
  missed_at: Date | null;
  frozen_skill: string | null;
  frozen_skill_status: FrozenSkillStatus;
  frozen_skill_error: string | null;
  frozen_for_version: number | null;
  source: JobSource;
  binding_id: string | null;
  created_by: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface RunRow {
  id: string;
  entity_id: string;
  job_id: string;
  trigger: RunTrigger;
  status: RunStatus;
  caught_up: boolean;
  scheduled_for: Date;
  queue: 'work' | 'celery' | null;
  dispatched_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  duration_ms: number | null;
  lease_expires_at: Date | null;
  attempts: number;
  worker: string | null;
  usage: Record<string, number> | null;
  error: { code: string; message: string } | null;
  detail: Record<string, unknown> | null;
  output: unknown;
  task_id: string | null;
  workflow_run_id: string | null;
  checked_at: Date | null;
  created_at: Date;
}

/** The schedule a row fires on. */
export function scheduleOf(row: Pick<JobValues, 'schedule_kind' | 'cron' | 'timezone' | 'every_seconds' | 'anchor_at' | 'at'>): Schedule {
  if (row.schedule_kind === 'cron') return { kind: 'cron', cron: row.cron!, timezone: row.timezone };
  if (row.schedule_kind === 'every') return { kind: 'every', every_seconds: row.every_seconds!, anchor: new Date(row.anchor_at) };
  return { kind: 'at', at: new Date(row.at!) };
}
