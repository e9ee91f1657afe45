import type { ActionSchema, Context, Service } from 'moleculer';
import type { Config } from '../../config/load.ts';
import type { ActionDocKeys, RestDeclaration } from '../../kernel/openapi/types.ts';
import type { JobQueue } from '../../kernel/queue/types.ts';
import { JOBS_CHANGED_EVENT, type JobsChanged } from '../../kernel/jobs-contract.ts';
import { validate as isUuid } from 'uuid';
import type { Transaction } from 'sequelize';
import type { Sql } from './store/sql.ts';
import type { JobStore } from './store/jobs.ts';
import type { RunStore } from './store/runs.ts';
import type { JobRow } from './store/types.ts';
import { notFound } from './errors.ts';
import type { RunWorker } from './worker.ts';

export type Env = Config['env'];

/** The instance the actions run on: `created()` sets these. */
export interface JobsService extends Service {
  env: Env;
  sql: Sql;
  jobs: JobStore;
  runs: RunStore;
  queue: JobQueue;
  worker: RunWorker;
  stopFreeze?: () => void;
  /** the scheduler's clock; tests set it to move time */
  now(): Date;
}

export type JobsAction = Omit<ActionSchema<JobsService>, 'rest'> & ActionDocKeys & { rest?: RestDeclaration };

/** The caller's job, else 404 (also for another entity's job or a non-UUID id). */
export async function loadJob(svc: JobsService, entityId: string, id: string, transaction?: Transaction, lock = false): Promise<JobRow> {
  const row = isUuid(id) ? await svc.jobs.find(entityId, id.toLowerCase(), transaction, lock) : undefined;
  if (!row) throw notFound('job', id);
  return row;
}

/** Tells every scheduler (any node) that a job's next fire moved. */
export function announceChange(svc: JobsService, row: Pick<JobRow, 'id' | 'next_run_at' | 'enabled'>): void {
  const payload: JobsChanged = { job_id: row.id, next_run_at: row.enabled && row.next_run_at ? new Date(row.next_run_at).toISOString() : null };
  void Promise.resolve(svc.broker.broadcast(JOBS_CHANGED_EVENT, payload)).catch(() => undefined);
}

export function created(ctx: Context): void {
  (ctx.meta as { $statusCode?: number }).$statusCode = 201;
}
