import type { Context } from 'moleculer';
import { validate as isUuid } from 'uuid';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { isNotFound } from '../../../kernel/references.ts';
import { JOB_ID_PARAM } from '../fields.ts';
import { notFound } from '../errors.ts';
import { loadJob, type JobsAction } from '../service.ts';
import { RUN_STATUSES } from '../store/types.ts';
import { RUN_SCHEMA, runView } from '../views.ts';

/** `GET /api/v1/jobs/{job_id}/runs` */
export const listRuns: JobsAction = {
  rest: 'GET /:job_id/runs',
  summary: 'Run log of a job',
  description: 'Append-only, newest first: every fire (queued, running, succeeded, failed), every skipped overlap and every missed slot, with scheduled time, start, duration, token usage and error.',
  tags: ['jobs'],
  params: { ...JOB_ID_PARAM, ...PAGING_PARAMS, status: { type: 'enum', values: [...RUN_STATUSES], optional: true } },
  response: pageSchema(RUN_SCHEMA),
  async handler(ctx: Context<{ job_id: string; limit: number; offset: number; status?: string }>) {
    const entityId = identityOf(ctx).entity_id;
    const job = await loadJob(this, entityId, ctx.params.job_id);
    const page = await this.runs.list(entityId, job.id, ctx.params.status, ctx.params.limit, ctx.params.offset);
    return { items: page.items.map(runView), total: page.total, limit: ctx.params.limit, offset: ctx.params.offset };
  },
};

type Step = { step_id: string; type: string | null; status: string; output: unknown; error: unknown; started_at: string | null; finished_at: string | null };

/** What a produced record looks like to the caller now (null when it is gone or not theirs). */
async function produced<T>(ctx: Context, action: string, params: Record<string, unknown>): Promise<T | null> {
  try {
    return (await ctx.call(action, params)) as T;
  } catch (err) {
    if (isNotFound(err) || (err as { code?: number }).code === 503) return null;
    throw err;
  }
}

/** `GET /api/v1/jobs/{job_id}/runs/{run_id}` */
export const getRun: JobsAction = {
  rest: 'GET /:job_id/runs/:run_id',
  summary: 'A run of a job, with what it produced',
  description: '`task`: the task the run created (agent jobs); `execution`: the agent run or workflow run it started (summary); `timeline`: its steps in order (for an agent run: each model turn and tool call).',
  tags: ['jobs'],
  params: { ...JOB_ID_PARAM, run_id: { type: 'string', min: 1, max: 64 } },
  response: {
    type: 'object',
    properties: {
      ...(RUN_SCHEMA.properties as object),
      task: { anyOf: [{ type: 'object' }, { type: 'null' }] },
      execution: { anyOf: [{ type: 'object' }, { type: 'null' }] },
      timeline: { type: 'array', items: { type: 'object' } },
    },
    required: [...RUN_SCHEMA.required, 'task', 'execution', 'timeline'],
  },
  async handler(ctx: Context<{ job_id: string; run_id: string }>) {
    const entityId = identityOf(ctx).entity_id;
    const job = await loadJob(this, entityId, ctx.params.job_id);
    const run = isUuid(ctx.params.run_id) ? await this.runs.get(entityId, job.id, ctx.params.run_id.toLowerCase()) : undefined;
    if (!run) throw notFound('job run', ctx.params.run_id);
    const [task, execution] = await Promise.all([
      run.task_id ? produced<Record<string, unknown>>(ctx, 'tasks.get', { id: run.task_id }) : null,
      run.workflow_run_id ? produced<Record<string, unknown> & { steps?: Step[] }>(ctx, 'workflows.getRun', { run_id: run.workflow_run_id }) : null,
    ]);
    const { steps, snapshot: _snapshot, ...summary } = execution ?? {};
    void _snapshot;
    const timeline = (steps ?? []).map((s) => ({ step_id: s.step_id, type: s.type, status: s.status, output: s.output, error: s.error, started_at: s.started_at, finished_at: s.finished_at }));
    return { ...runView(run), task, execution: execution ? summary : null, timeline };
  },
};
