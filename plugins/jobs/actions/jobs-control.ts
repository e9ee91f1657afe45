import type { Context } from 'moleculer';
import { jobWorkspace } from '../workspace-of.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { findExecutor } from '../../../kernel/executors/registry.ts';
import { JOB_ID_PARAM } from '../fields.ts';
import { firstFire } from '../next-fire.ts';
import { JOBS_ERR_RUN_IN_PROGRESS, managedByBinding } from '../errors.ts';
import { announceChange, loadJob, type JobsAction } from '../service.ts';
import { JOB_SCHEMA, RUN_SCHEMA, jobView, runView } from '../views.ts';

/** `POST /api/v1/jobs/{job_id}/toggle` */
export const toggle: JobsAction = {
  rest: 'POST /:job_id/toggle',
  workspaceOf: jobWorkspace,
  summary: 'Enable or pause a job',
  description: '`enabled` sets the state; without it the state flips. Enabling computes the next fire from now (time spent paused is not caught up) and resets the consecutive failures.',
  tags: ['jobs'],
  params: { ...JOB_ID_PARAM, enabled: { type: 'boolean', optional: true } },
  response: JOB_SCHEMA,
  async handler(ctx: Context<{ job_id: string; enabled?: boolean }>) {
    const entityId = identityOf(ctx).entity_id;
    const current = await loadJob(this, entityId, ctx.params.job_id);
    if (current.source === 'binding' && current.binding_id) throw managedByBinding(current.id, current.binding_id);
    const enabled = ctx.params.enabled ?? !current.enabled;
    if (enabled === current.enabled) return jobView(current);
    const next = enabled ? firstFire({ ...current, enabled: true }, this.now()) : null;
    const row = await this.jobs.setEnabled(entityId, current.id, enabled, next, enabled ? null : 'paused by a user');
    announceChange(this, row);
    return jobView(row);
  },
};

/** `POST /api/v1/jobs/{job_id}/run_now` */
export const runNow: JobsAction = {
  rest: 'POST /:job_id/run_now',
  workspaceOf: jobWorkspace,
  summary: 'Fire a job now',
  description:
    'Commits a run (trigger `run_now`) and puts it on the queue of its executor, exactly as a scheduled fire: a worker runs it, never the API. Answers 202 with the run. While a run of the job is still going, overlap `skip` answers 409 `JOBS_ERR_RUN_IN_PROGRESS` and overlap `queue` queues it behind. Works on paused jobs too.',
  tags: ['jobs'],
  params: { ...JOB_ID_PARAM },
  response: { 202: { description: 'The queued run', schema: RUN_SCHEMA } },
  async handler(ctx: Context<{ job_id: string }>) {
    const entityId = identityOf(ctx).entity_id;
    const job = await loadJob(this, entityId, ctx.params.job_id);
    const queue = findExecutor(this.broker, job.executor)?.queue ?? 'work';
    const run = await this.sql.transaction(async (transaction) => {
      await loadJob(this, entityId, job.id, transaction, true); // serialises racing run_now calls of one job
      const busy = await this.runs.busy(job.id, transaction);
      if (busy && job.overlap === 'skip') throw JOBS_ERR_RUN_IN_PROGRESS(`Run '${busy.id}' of this job is still ${busy.status}; the job's overlap policy is skip.`, { run_id: busy.id });
      return this.runs.insertManual(job, queue, !busy, transaction);
    });
    if (run.dispatched_at) await this.worker.enqueue(run);
    (ctx.meta as { $statusCode?: number }).$statusCode = 202;
    return runView(run);
  },
};

