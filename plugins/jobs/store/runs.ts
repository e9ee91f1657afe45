import type { Transaction } from 'sequelize';
import { newId } from '../../../kernel/tenancy/ids.ts';
import type { ExecuteAnswer } from '../../../kernel/jobs-contract.ts';
import type { Sql } from './sql.ts';
import type { JobRow, RunRow } from './types.ts';

/** What a settled run did to its job (the caller emits, deletes or dispatches after commit). */
export interface Settled {
  run: RunRow;
  job: Pick<JobRow, 'id' | 'entity_id' | 'enabled' | 'delete_after_run' | 'schedule_kind' | 'overlap' | 'next_run_at'> & { paused_now: boolean };
}

/** The append-only run log: rows are inserted, moved forward through their statuses, never rewritten after they end. */
export class RunStore {
  constructor(private readonly sql: Sql) {}

  /** A manual fire (run_now): queued now, or waiting behind the running one (`dispatched: false`). */
  async insertManual(job: JobRow, queue: 'work' | 'celery', dispatched: boolean, transaction?: Transaction): Promise<RunRow> {
    const detail = dispatched ? null : JSON.stringify({ waiting: 'for the previous run to finish (overlap: queue)' });
    const row = await this.sql.one<RunRow>(
      `INSERT INTO job_runs (id, entity_id, job_id, trigger, status, scheduled_for, queue, dispatched_at, detail, created_at)
       VALUES ($1, $2, $3, 'run_now', 'queued', now(), $4, CASE WHEN $5 THEN now() END, $6::jsonb, now()) RETURNING *`,
      [newId(), job.entity_id, job.id, queue, dispatched, detail],
      transaction,
    );
    return row!;
  }

  /** Whether the job has a run queued or running. */
  async busy(jobId: string, transaction?: Transaction): Promise<RunRow | undefined> {
    return this.sql.one<RunRow>(`SELECT * FROM job_runs WHERE job_id = $1 AND status IN ('queued', 'running') ORDER BY created_at LIMIT 1`, [jobId], transaction);
  }

  /** Worker side: queued -> running under a lease; undefined when another delivery took it (or it ended). */
  async claim(runId: string, worker: string, leaseSeconds: number): Promise<RunRow | undefined> {
    return this.sql.one<RunRow>(
      `UPDATE job_runs SET status = 'running', started_at = coalesce(started_at, now()), attempts = attempts + 1, worker = $2,
         lease_expires_at = now() + make_interval(secs => $3), dispatched_at = coalesce(dispatched_at, now())
       WHERE id = $1 AND status = 'queued' RETURNING *`,
      [runId, worker, leaseSeconds],
    );
  }

  async renewLease(runId: string, leaseSeconds: number): Promise<void> {
    await this.sql.exec(`UPDATE job_runs SET lease_expires_at = now() + make_interval(secs => $2) WHERE id = $1 AND status = 'running' AND lease_expires_at IS NOT NULL`, [runId, leaseSeconds]);
  }

  /** The executor started something that ends later: remember what, and drop the lease (the executor's own durability holds it now). */
  async started(runId: string, refs: { task_id?: string | null; workflow_run_id?: string | null }): Promise<void> {
    await this.sql.exec(
      `UPDATE job_runs SET task_id = coalesce($2, task_id), workflow_run_id = coalesce($3, workflow_run_id), lease_expires_at = NULL, checked_at = now() WHERE id = $1 AND status = 'running'`,
      [runId, refs.task_id ?? null, refs.workflow_run_id ?? null],
    );
  }

  /**
   * Ends a running run and counts it on its job, in one transaction: a success resets the
   * consecutive failures and clears a recorded miss; a failure counts, and at `pauseAfter`
   * failures in a row (0: never) the job is paused with the reason.
   */
  async settle(runId: string, answer: ExecuteAnswer & { status: 'succeeded' | 'failed' }, pauseAfter: number): Promise<Settled | undefined> {
    return this.sql.transaction(async (transaction) => {
      const run = await this.sql.one<RunRow>(
        `UPDATE job_runs SET status = $2, finished_at = now(), duration_ms = GREATEST(0, floor(extract(epoch FROM now() - coalesce(started_at, created_at)) * 1000))::int,
           usage = $3::jsonb, error = $4::jsonb, output = $5::jsonb, task_id = coalesce($6, task_id), workflow_run_id = coalesce($7, workflow_run_id), lease_expires_at = NULL
         WHERE id = $1 AND status IN ('running', 'queued') RETURNING *`,
        [runId, answer.status, json(answer.usage), json(answer.error), json(answer.output), answer.task_id ?? null, answer.workflow_run_id ?? null],
        transaction,
      );
      if (!run) return undefined;
      const ok = answer.status === 'succeeded';
      const reason = `paused after ${pauseAfter} failed runs in a row (last: ${answer.error?.message ?? 'failed'})`.slice(0, 2000);
      const job = await this.sql.one<Settled['job'] & { was_enabled: boolean }>(
        `UPDATE jobs j SET last_run_status = $2,
           consecutive_failures = CASE WHEN $3 THEN 0 ELSE j.consecutive_failures + 1 END,
           missed_at = CASE WHEN $3 THEN NULL ELSE j.missed_at END,
           enabled = CASE WHEN NOT $3 AND $4 > 0 AND j.consecutive_failures + 1 >= $4 THEN false ELSE j.enabled END,
           paused_reason = CASE WHEN NOT $3 AND $4 > 0 AND j.consecutive_failures + 1 >= $4 AND j.enabled THEN $5 ELSE j.paused_reason END,
           next_run_at = CASE WHEN NOT $3 AND $4 > 0 AND j.consecutive_failures + 1 >= $4 THEN NULL ELSE j.next_run_at END
         FROM (SELECT enabled AS was_enabled FROM jobs WHERE id = $1 FOR UPDATE) old
         WHERE j.id = $1
         RETURNING j.id, j.entity_id, j.enabled, j.delete_after_run, j.schedule_kind, j.overlap, j.next_run_at, old.was_enabled`,
        [run.job_id, answer.status, ok, pauseAfter, reason],
        transaction,
      );
      if (!job) return { run, job: { id: run.job_id, entity_id: run.entity_id, enabled: false, delete_after_run: false, schedule_kind: 'cron', overlap: 'skip', next_run_at: null, paused_now: false } };
      const { was_enabled, ...rest } = job;
      return { run, job: { ...rest, paused_now: was_enabled && !job.enabled } };
    });
  }

  /** The oldest run of the job waiting behind a finished one (overlap: queue), now dispatched. */
  async dispatchNextWaiting(jobId: string): Promise<RunRow | undefined> {
    return this.sql.one<RunRow>(
      `UPDATE job_runs SET dispatched_at = now(), detail = NULL WHERE id = (
         SELECT id FROM job_runs r WHERE r.job_id = $1 AND r.status = 'queued' AND r.dispatched_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM job_runs o WHERE o.job_id = $1 AND (o.status = 'running' OR (o.status = 'queued' AND o.dispatched_at IS NOT NULL)))
         ORDER BY r.created_at LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING *`,
      [jobId],
    );
  }

  async get(entityId: string, jobId: string, runId: string): Promise<RunRow | undefined> {
    return this.sql.one<RunRow>('SELECT * FROM job_runs WHERE entity_id = $1 AND job_id = $2 AND id = $3', [entityId, jobId, runId]);
  }

  async byId(runId: string): Promise<RunRow | undefined> {
    return this.sql.one<RunRow>('SELECT * FROM job_runs WHERE id = $1', [runId]);
  }

  async list(entityId: string, jobId: string, status: string | undefined, limit: number, offset: number): Promise<{ items: RunRow[]; total: number }> {
    const bind: unknown[] = [entityId, jobId];
    let where = 'entity_id = $1 AND job_id = $2';
    if (status) {
      bind.push(status);
      where += ` AND status = $${bind.length}`;
    }
    const [items, count] = await Promise.all([
      this.sql.rows<RunRow>(`SELECT * FROM job_runs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, bind),
      this.sql.one<{ n: string }>(`SELECT count(*) AS n FROM job_runs WHERE ${where}`, bind),
    ]);
    return { items, total: Number(count?.n ?? 0) };
  }

  /** Running runs following something started elsewhere (a task, a workflow run), by what they follow. */
  /** When the job's last successful run (other than `exceptRunId`) started. */
  async lastSuccessAt(jobId: string, exceptRunId: string): Promise<Date | null> {
    const row = await this.sql.one<{ at: Date | null }>(`SELECT max(coalesce(started_at, scheduled_for)) AS at FROM job_runs WHERE job_id = $1 AND status = 'succeeded' AND id <> $2`, [jobId, exceptRunId]);
    return row?.at ?? null;
  }

  /** Takes a followed run for one poll, so no other poll asks its executor meanwhile; undefined when another holds it or it ended. */
  async claimPoll(runId: string, leaseSeconds: number): Promise<RunRow | undefined> {
    return this.sql.one<RunRow>(
      `UPDATE job_runs SET lease_expires_at = now() + make_interval(secs => $2), checked_at = now() WHERE id = $1 AND status = 'running' AND lease_expires_at IS NULL RETURNING *`,
      [runId, leaseSeconds],
    );
  }

  /** A poll that left the run running gives it back to the next one. */
  async releasePoll(runId: string): Promise<void> {
    await this.sql.exec(`UPDATE job_runs SET lease_expires_at = NULL WHERE id = $1 AND status = 'running'`, [runId]);
  }

  async following(ref: { task_id?: string | null; workflow_run_id?: string | null }): Promise<RunRow[]> {
    if (!ref.task_id && !ref.workflow_run_id) return [];
    return this.sql.rows<RunRow>(`SELECT * FROM job_runs WHERE status = 'running' AND (task_id = $1 OR workflow_run_id = $2)`, [ref.task_id ?? null, ref.workflow_run_id ?? null]);
  }

  // ---- recovery (the scheduler's sweeper) ----

  /** Dispatched runs still queued after `olderThanSeconds`: their queue job may be lost (a crash between commit and enqueue). */
  async stuckQueued(olderThanSeconds: number): Promise<RunRow[]> {
    return this.sql.rows<RunRow>(
      `SELECT * FROM job_runs WHERE status = 'queued' AND dispatched_at IS NOT NULL AND dispatched_at < now() - make_interval(secs => $1) ORDER BY dispatched_at LIMIT 1000`,
      [olderThanSeconds],
    );
  }

  /** Jobs with a run waiting behind a run that has ended. */
  async jobsWithFreedWaiting(): Promise<string[]> {
    const rows = await this.sql.rows<{ job_id: string }>(
      `SELECT DISTINCT r.job_id FROM job_runs r WHERE r.status = 'queued' AND r.dispatched_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM job_runs o WHERE o.job_id = r.job_id AND (o.status = 'running' OR (o.status = 'queued' AND o.dispatched_at IS NOT NULL))) LIMIT 1000`,
    );
    return rows.map((r) => r.job_id);
  }

  /** Runs whose worker stopped renewing the lease while starting them (killed, crashed). */
  async lostRunning(): Promise<RunRow[]> {
    return this.sql.rows<RunRow>(`SELECT * FROM job_runs WHERE status = 'running' AND lease_expires_at IS NOT NULL AND lease_expires_at < now() ORDER BY started_at LIMIT 1000`);
  }

  /** Lost run back to the queue (its executor may start twice), or undefined when someone else moved it. */
  async requeue(runId: string): Promise<RunRow | undefined> {
    return this.sql.one<RunRow>(
      `UPDATE job_runs SET status = 'queued', dispatched_at = now(), lease_expires_at = NULL, worker = NULL WHERE id = $1 AND status = 'running' AND lease_expires_at < now() RETURNING *`,
      [runId],
    );
  }

  /** Running runs following something elsewhere, not looked at for `everySeconds`: marked checked now and answered. */
  async dueForPoll(everySeconds: number): Promise<RunRow[]> {
    return this.sql.rows<RunRow>(
      `UPDATE job_runs SET checked_at = now() WHERE id IN (
         SELECT id FROM job_runs WHERE status = 'running' AND lease_expires_at IS NULL AND (checked_at IS NULL OR checked_at < now() - make_interval(secs => $1))
         ORDER BY checked_at NULLS FIRST LIMIT 200 FOR UPDATE SKIP LOCKED) RETURNING *`,
      [everySeconds],
    );
  }
}

function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}
