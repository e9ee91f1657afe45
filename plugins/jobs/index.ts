import type { Context, ServiceSchema } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { WORKFLOWS_RUN_SETTLED_EVENT, type RunSettled } from '../../kernel/nodes/durable.ts';
import { registerJobHandler } from '../../kernel/queue/dispatch.ts';
import { WORKSPACE_DELETED_EVENT, type WorkspaceDeletedPayload } from '../../kernel/workspace-contracts.ts';
import { sqlOn } from './store/sql.ts';
import { JobStore } from './store/jobs.ts';
import { RunStore } from './store/runs.ts';
import { RunWorker } from './worker.ts';
import { FREEZE_JOB, freezeSkill } from './frozen-skill.ts';
import { syncBindings } from './bindings.ts';
import { announceChange, type JobsService } from './service.ts';
import { create, createFromTool, get, list, remove, update } from './actions/jobs-crud.ts';
import { runNow, toggle } from './actions/jobs-control.ts';
import { getRun, listRuns } from './actions/runs.ts';
import { fireDue, nextDue, prepareFire, recover } from './actions/internal.ts';
import { preview } from './actions/preview.ts';
import { executors } from './actions/executors.ts';

/**
 * Scheduled jobs: `/api/v1/jobs` (see README.md), the append-only run log, and the worker side
 * of job runs: on a `control` node it consumes `celery` (WORKER_CONTROL_CONCURRENCY), on a
 * `work` node `work` (WORKER_WORK_CONCURRENCY). Firing is the scheduler package's (control
 * role), through `jobs.fireDue`. Executors are packages of kind `executor` (executors/).
 */
export default {
  name: 'jobs',
  actions: {
    list,
    create,
    createFromTool,
    preview,
    // before `get`: the first alias that matches answers, and GET /:job_id would take /executors
    executors,
    get,
    update,
    remove,
    toggle,
    runNow,
    listRuns,
    getRun,
    fireDue,
    nextDue,
    prepareFire,
    recover,
    syncBindings: {
      visibility: 'public',
      params: { binding_id: { type: 'uuid', optional: true } },
      handler(this: JobsService, ctx: Context<{ binding_id?: string }>) {
        return syncBindings(this, ctx.params.binding_id);
      },
    },
  },
  events: {
    [WORKFLOWS_RUN_SETTLED_EVENT]: {
      group: 'jobs',
      async handler(this: JobsService, ctx: Context<RunSettled>) {
        const p = ctx.params;
        if (p.status === 'running' || p.status === 'pending') return;
        const taskId = typeof p.trigger?.task_id === 'string' ? p.trigger.task_id : null;
        const runs = await this.runs.following({ task_id: taskId, workflow_run_id: p.run_id });
        for (const run of runs) await this.worker.poll(run).catch((err: Error) => this.logger.warn({ err, run_id: run.id }, 'could not settle a job run'));
      },
    },
    'workflows.bindings.changed': {
      group: 'jobs',
      async handler(this: JobsService, ctx: Context<{ binding_id?: string }>) {
        await syncBindings(this, ctx.params?.binding_id);
      },
    },
    [WORKSPACE_DELETED_EVENT]: {
      group: 'jobs',
      async handler(this: JobsService, ctx: Context<WorkspaceDeletedPayload>) {
        const { entity_id, workspace_id } = ctx.params ?? {};
        if (!entity_id || !workspace_id) return;
        const gone = await this.sql.rows<{ id: string }>('DELETE FROM jobs WHERE entity_id = $1 AND workspace_id::text = $2 RETURNING id', [entity_id, workspace_id]);
        for (const g of gone) announceChange(this, { id: g.id, next_run_at: null, enabled: false });
      },
    },
  },
  created(this: JobsService) {
    const kernel = kernelOf(this.broker);
    this.env = kernel.config.env;
    this.sql = sqlOn(kernel.db);
    this.jobs = new JobStore(this.sql);
    this.runs = new RunStore(this.sql);
    this.queue = kernel.queue;
    this.now = () => new Date();
    this.worker = new RunWorker({
      broker: this.broker,
      sql: this.sql,
      jobs: this.jobs,
      runs: this.runs,
      queue: kernel.queue,
      node: this.broker.nodeID,
      leaseSeconds: this.env.JOBS_RUN_LEASE_SECONDS,
      pauseAfter: this.env.JOBS_PAUSE_AFTER_FAILURES,
      logger: this.logger,
      changed: (job) => announceChange(this, job),
    });
  },
  started(this: JobsService) {
    const kernel = kernelOf(this.broker);
    const roles = this.env.ROLES as string[];
    // job runs wait until the node's start-up packages (executors) are loaded
    void kernel.packagesLoaded.then(() => {
      if (roles.includes('control')) {
        this.worker.consume('celery', this.env.WORKER_CONTROL_CONCURRENCY);
        this.stopFreeze = registerJobHandler(kernel.queue, 'celery', FREEZE_JOB, this.env.WORKER_CONTROL_CONCURRENCY, (job) => freezeSkill(this.broker, this.jobs, job.id));
      }
      if (roles.includes('work')) this.worker.consume('work', this.env.WORKER_WORK_CONCURRENCY);
    });
  },
  stopped(this: JobsService) {
    this.worker.stop();
    this.stopFreeze?.();
  },
} as unknown as ServiceSchema;
