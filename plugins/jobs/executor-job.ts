import { jobContextOf, type ExecutorJob, type ExecutorRun } from '../../kernel/jobs-contract.ts';
import type { JobRow, RunRow } from './store/types.ts';

/** The job as executors see it (kernel/jobs-contract.ts). */
export function executorJob(row: JobRow): ExecutorJob {
  return {
    id: row.id,
    entity_id: row.entity_id,
    name: row.name,
    executor: row.executor,
    ...jobContextOf(row),
    frozen_skill: row.frozen_skill_status === 'ready' ? row.frozen_skill : null,
    created_by: row.created_by,
  };
}

export function executorRun(row: RunRow, lastSuccessAt: Date | null = null): ExecutorRun {
  return {
    id: row.id,
    scheduled_for: new Date(row.scheduled_for).toISOString(),
    trigger: row.trigger,
    attempt: row.attempts,
    started_at: row.started_at ? new Date(row.started_at).toISOString() : null,
    task_id: row.task_id,
    workflow_run_id: row.workflow_run_id,
    last_success_at: lastSuccessAt ? new Date(lastSuccessAt).toISOString() : null,
  };
}

/** The job's creator as the caller of what the executor does (tenancy applies to it). */
export function asCreator(job: Pick<JobRow, 'entity_id' | 'created_by'>) {
  return { meta: { user: { id: job.created_by, entity_id: job.entity_id, role: 'member' } } };
}
