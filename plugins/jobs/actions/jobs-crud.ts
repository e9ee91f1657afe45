import type { Context } from 'moleculer';
import { jobWorkspace } from '../workspace-of.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import type { JSONSchema } from '../../../kernel/openapi/types.ts';
import { JOB_FIELDS, JOB_ID_PARAM, JOB_UPDATE_FIELDS, LIST_FIELDS, NEXT_PARAM } from '../fields.ts';
import { resolveJob, type JobInput } from '../input.ts';
import { firstFire, previewFires } from '../next-fire.ts';
import { managedByBinding } from '../errors.ts';
import { announceChange, created, loadJob, type JobsAction, type JobsService } from '../service.ts';
import type { StatusFilter } from '../store/jobs.ts';
import type { JobRow } from '../store/types.ts';
import { JOB_SCHEMA, jobView } from '../views.ts';
import { requestFrozenSkill } from '../frozen-skill.ts';

const COUNTS_SCHEMA = { type: 'object', properties: { all: { type: 'integer' }, enabled: { type: 'integer' }, paused: { type: 'integer' }, attention: { type: 'integer' } }, required: ['all', 'enabled', 'paused', 'attention'] };

/** `GET /api/v1/jobs` */
export const list: JobsAction = {
  rest: 'GET /',
  summary: 'List scheduled jobs',
  description: 'Newest first. `status`: all (default), enabled, paused, attention (enabled, and failing or with a missed run not caught up). `search` matches name, description and prompt. `counts` has the number per status (with `search` and `agent_id` applied).',
  tags: ['jobs'],
  params: { ...PAGING_PARAMS, ...LIST_FIELDS },
  response: { ...pageSchema(JOB_SCHEMA), properties: { ...(pageSchema(JOB_SCHEMA).properties as object), counts: COUNTS_SCHEMA } } as JSONSchema,
  async handler(ctx: Context<{ limit: number; offset: number; status: StatusFilter; search?: string; agent_id?: string }>) {
    const { limit, offset, status, search, agent_id } = ctx.params;
    const page = await this.jobs.list(identityOf(ctx).entity_id, { status, search: search || undefined, agent_id: agent_id?.toLowerCase() }, limit, offset);
    return { items: page.items.map((r) => jobView(r)), total: page.total, limit, offset, counts: page.counts };
  },
};

/** `POST /api/v1/jobs` */
export const create: JobsAction = {
  rest: 'POST /',
  summary: 'Create a scheduled job',
  description:
    '`schedule`: `{kind: cron, cron, timezone}` (5 fields, evaluated in the IANA zone), `{kind: every, every_seconds}` (at least 60) or `{kind: at, at}` (a future instant; without an offset it is wall-clock time in `timezone`). `executor` defaults to `agent`; it must be loaded (`skill` is refused until skills exist). Context links are checked: another entity\'s is 404. `deliverables`: workspace file paths a run must leave behind to succeed.',
  tags: ['jobs'],
  params: { ...JOB_FIELDS },
  response: { 201: { description: 'The new job', schema: JOB_SCHEMA } },
  async handler(ctx: Context<JobInput>) {
    return createJob(this, ctx, ctx.params, 'api');
  },
};

/** `jobs.createFromTool` (internal): the schedule_job tool's create, as the run's user, marked `source: tool`. */
export const createFromTool: JobsAction = {
  visibility: 'public',
  params: { ...JOB_FIELDS },
  async handler(ctx: Context<JobInput>) {
    return createJob(this, ctx, ctx.params, 'tool');
  },
};

/** Creates a job (the API and the schedule_job tool alike). */
export async function createJob(svc: JobsService, ctx: Context, input: JobInput, source: 'api' | 'tool'): Promise<ReturnType<typeof jobView>> {
  const who = identityOf(ctx);
  const now = svc.now();
  const { values, executor } = await resolveJob(ctx, input, undefined, now);
  const row = await svc.jobs.create(who.entity_id, values, { next_run_at: firstFire(values, now), created_by: who.id, source, frozen: executor.frozen_skill === true });
  announceChange(svc, row);
  if (executor.frozen_skill) await requestFrozenSkill(svc, row);
  created(ctx);
  return jobView(row);
}

/** `GET /api/v1/jobs/{job_id}` */
export const get: JobsAction = {
  rest: 'GET /:job_id',
  summary: 'Get a scheduled job',
  description: '`?next=N` (1-50) adds `next_fire_times`: the next N fires of the schedule, to check an expression.',
  tags: ['jobs'],
  params: { ...JOB_ID_PARAM, ...NEXT_PARAM },
  response: JOB_SCHEMA,
  async handler(ctx: Context<{ job_id: string; next?: number }>) {
    const row = await loadJob(this, identityOf(ctx).entity_id, ctx.params.job_id);
    return jobView(row, ctx.params.next ? previewFires(row, this.now(), ctx.params.next) : undefined);
  },
};

function refuseManaged(row: JobRow): void {
  if (row.source === 'binding' && row.binding_id) throw managedByBinding(row.id, row.binding_id);
}

/** `PUT /api/v1/jobs/{job_id}` */
export const update: JobsAction = {
  rest: 'PUT /:job_id',
  workspaceOf: jobWorkspace,
  summary: 'Update a scheduled job',
  description: 'Changes the fields given (the whole `schedule` object when given); the next fire is computed again from now. A job of a workflow binding is changed through its binding (409).',
  tags: ['jobs'],
  params: { ...JOB_ID_PARAM, ...JOB_UPDATE_FIELDS },
  response: JOB_SCHEMA,
  async handler(ctx: Context<JobInput & { job_id: string }>) {
    const { job_id: jobId, ...input } = ctx.params;
    const entityId = identityOf(ctx).entity_id;
    const current = await loadJob(this, entityId, jobId);
    refuseManaged(current);
    const now = this.now();
    const { values, executor } = await resolveJob(ctx, input, current, now);
    const promptChanged = values.payload_message !== current.payload_message || values.executor !== current.executor;
    const frozen = executor.frozen_skill === true && (promptChanged || current.frozen_skill_status === 'none');
    const row = await this.jobs.update(entityId, current.id, values, { next_run_at: firstFire(values, now), frozen });
    announceChange(this, row);
    if (frozen) await requestFrozenSkill(this, row);
    return jobView(row);
  },
};

/** `DELETE /api/v1/jobs/{job_id}` */
export const remove: JobsAction = {
  rest: 'DELETE /:job_id',
  workspaceOf: jobWorkspace,
  summary: 'Delete a scheduled job',
  description: 'The job and its run log go; tasks and workflow runs its runs produced stay. A job of a workflow binding is removed with its binding (409).',
  tags: ['jobs'],
  params: { ...JOB_ID_PARAM },
  response: { 204: { description: 'Deleted' } },
  async handler(ctx: Context<{ job_id: string }>) {
    const entityId = identityOf(ctx).entity_id;
    const row = await loadJob(this, entityId, ctx.params.job_id);
    refuseManaged(row);
    await this.jobs.remove(entityId, row.id);
    announceChange(this, { id: row.id, next_run_at: null, enabled: false });
    (ctx.meta as { $statusCode?: number }).$statusCode = 204;
    return undefined;
  },
};
