import { newId } from '../../../kernel/tenancy/ids.ts';
import { planFire } from '../../../kernel/schedule/fire-plan.ts';
import type { Sql } from './sql.ts';
import { scheduleOf, type JobRow } from './types.ts';

export interface FireOptions {
  now: Date;
  limit: number;
  graceMs: number;
  lookbackMs: number;
  queueOf(executor: string): 'work' | 'celery';
}

export interface Dispatch {
  run_id: string;
  job_id: string;
  queue: 'work' | 'celery';
  scheduled_for: Date;
}

interface NewRun {
  id: string;
  entity_id: string;
  job_id: string;
  trigger: 'schedule' | 'catch_up';
  status: 'queued' | 'missed' | 'skipped';
  caught_up: boolean;
  scheduled_for: Date;
  queue: 'work' | 'celery' | null;
  dispatched_at: Date | null;
  finished_at: Date | null;
  detail: Record<string, unknown> | null;
}

/**
 * What a pass reads of a due job: its schedule, executor and overlap policy. Never `j.*`: a job
 * carries its payload, config, deliverables and frozen skill (kilobytes each), and a burst of
 * 1,000 due jobs would move and parse all of them while every fire of the burst waits.
 */
const DUE_COLUMNS = ['id', 'entity_id', 'schedule_kind', 'cron', 'timezone', 'every_seconds', 'anchor_at', 'at', 'executor', 'overlap', 'next_run_at'].map((c) => `j.${c}`).join(', ');
type DueJob = Pick<JobRow, 'id' | 'entity_id' | 'schedule_kind' | 'cron' | 'timezone' | 'every_seconds' | 'anchor_at' | 'at' | 'executor' | 'overlap' | 'next_run_at'> & { busy: boolean };

/** The three statements of a pass (warmClaim plans them ahead of a burst). */
const SELECT_DUE = `SELECT ${DUE_COLUMNS}, EXISTS (SELECT 1 FROM job_runs r WHERE r.job_id = j.id AND r.status IN ('queued', 'running')) AS busy
  FROM jobs j WHERE j.enabled AND j.next_run_at <= $1 ORDER BY j.next_run_at LIMIT $2 FOR UPDATE OF j SKIP LOCKED`;
const INSERT_RUNS = `INSERT INTO job_runs (id, entity_id, job_id, trigger, status, caught_up, scheduled_for, queue, dispatched_at, finished_at, detail, created_at)
  SELECT u.*, $12::timestamptz FROM unnest($1::uuid[], $2::varchar[], $3::uuid[], $4::varchar[], $5::varchar[], $6::boolean[], $7::timestamptz[], $8::varchar[], $9::timestamptz[], $10::timestamptz[], $11::jsonb[]) AS u
  ON CONFLICT DO NOTHING RETURNING id`;
const MOVE_JOBS = `UPDATE jobs j SET next_run_at = u.next, missed_at = CASE WHEN u.missed THEN $4::timestamptz ELSE j.missed_at END, last_run_at = $4::timestamptz
  FROM unnest($1::uuid[], $2::timestamptz[], $3::boolean[]) AS u(id, next, missed) WHERE j.id = u.id`;

/**
 * Gets a pool connection ready for the next pass, shortly before a due instant: the pool closes
 * connections idle for 10 s, so a burst after a quiet minute would otherwise wait for a new
 * connection and a new server backend that has yet to load the catalog entries, statistics
 * and indexes of jobs and job_runs before it can plan the pass. This plans the pass's three
 * statements (EXPLAIN, nothing runs) in one transaction on one connection, which goes back to
 * the pool last and is the one the pass takes (the pool hands out the last released first).
 */
export async function warmClaim(sql: Sql): Promise<void> {
  const none: unknown[] = [];
  await sql.transaction(async (transaction) => {
    await sql.rows(`EXPLAIN ${SELECT_DUE}`, [new Date(0), 1], transaction);
    await sql.rows(`EXPLAIN ${INSERT_RUNS}`, [none, none, none, none, none, none, none, none, none, none, none, new Date(0)], transaction);
    await sql.rows(`EXPLAIN ${MOVE_JOBS}`, [none, none, none, new Date(0)], transaction);
  });
}

/**
 * One scheduler pass, in ONE transaction: takes the due jobs no other control node holds (FOR
 * UPDATE SKIP LOCKED), writes each fire as a run row (unique per job and slot, so a slot is one
 * row whatever happens) and moves each job to its next fire. Answers the runs to put on the
 * queues: the caller enqueues them only after this commits.
 */
export async function claimDue(sql: Sql, opts: FireOptions): Promise<{ dispatch: Dispatch[]; claimed: number }> {
  return sql.transaction(async (transaction) => {
    const due = await sql.rows<DueJob>(
      SELECT_DUE,
      [opts.now, opts.limit],
      transaction,
    );
    if (!due.length) return { dispatch: [], claimed: 0 };
    const runs: NewRun[] = [];
    const jobs: { id: string; next: Date | null; missed: boolean }[] = [];
    for (const job of due) {
      const plan = planFire(scheduleOf(job), new Date(job.next_run_at!), opts.now, opts);
      const base = { entity_id: job.entity_id, job_id: job.id, queue: null, dispatched_at: null, detail: null };
      if (plan.missed) {
        runs.push({ ...base, id: newId(), trigger: 'schedule', status: 'missed', caught_up: false, scheduled_for: plan.missed.first, finished_at: opts.now, detail: { first_slot: plan.missed.first.toISOString(), last_slot: plan.missed.last.toISOString(), reason: 'the scheduler was not running at these times (older than the look-back)' } });
      }
      if (plan.fire) {
        const trigger = plan.fire.caught_up ? 'catch_up' : 'schedule';
        const fire = { ...base, id: newId(), trigger, caught_up: plan.fire.caught_up, scheduled_for: plan.fire.scheduled_for } as const;
        if (!job.busy) runs.push({ ...fire, status: 'queued', queue: opts.queueOf(job.executor), dispatched_at: opts.now, finished_at: null });
        else if (job.overlap === 'queue') runs.push({ ...fire, status: 'queued', queue: opts.queueOf(job.executor), dispatched_at: null, finished_at: null, detail: { waiting: 'for the previous run to finish (overlap: queue)' } });
        else runs.push({ ...fire, status: 'skipped', finished_at: opts.now, detail: { reason: 'the previous run was still going (overlap: skip)' } });
      }
      jobs.push({ id: job.id, next: plan.next, missed: plan.missed !== null && plan.fire === null });
    }
    const inserted = await sql.rows<{ id: string }>(
      INSERT_RUNS,
      [
        runs.map((r) => r.id), runs.map((r) => r.entity_id), runs.map((r) => r.job_id), runs.map((r) => r.trigger), runs.map((r) => r.status), runs.map((r) => r.caught_up),
        runs.map((r) => r.scheduled_for), runs.map((r) => r.queue), runs.map((r) => r.dispatched_at), runs.map((r) => r.finished_at), runs.map((r) => (r.detail ? JSON.stringify(r.detail) : null)), opts.now,
      ],
      transaction,
    );
    await sql.exec(
      MOVE_JOBS,
      [jobs.map((j) => j.id), jobs.map((j) => j.next), jobs.map((j) => j.missed), opts.now],
      transaction,
    );
    const written = new Set(inserted.map((r) => r.id));
    const dispatch = runs.filter((r) => written.has(r.id) && r.status === 'queued' && r.dispatched_at !== null).map((r) => ({ run_id: r.id, job_id: r.job_id, queue: r.queue!, scheduled_for: r.scheduled_for }));
    return { dispatch, claimed: due.length };
  });
}
