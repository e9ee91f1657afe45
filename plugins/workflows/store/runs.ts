import { json, type Sql } from './sql.ts';
import type { Commit, NewRun, ReceiptRow, RunEvent, RunRow } from './run-types.ts';

const RECEIPT_COLUMNS = 'step_id text, status text, attempt int, input jsonb, output jsonb, error jsonb, taken jsonb, directive jsonb, uncertain boolean, carried_from uuid, started_at timestamptz, finished_at timestamptz, execute_ms real';

/** Receipts from a jsonb array parameter, for INSERT ... SELECT. */
const receiptsFrom = (param: string) => `jsonb_to_recordset(${param}::jsonb) AS x(${RECEIPT_COLUMNS})`;

const INSERT_RECEIPTS = (runParam: string, entityParam: string, source: string) => `
  INSERT INTO workflow_step_receipts (run_id, step_id, entity_id, status, attempt, input, output, error, taken, directive, uncertain, carried_from, started_at, finished_at, execute_ms)
  SELECT ${runParam}, x.step_id, ${entityParam}, x.status, x.attempt, x.input, x.output, x.error, x.taken, x.directive, x.uncertain, x.carried_from, x.started_at, x.finished_at, x.execute_ms
  FROM ${source}
  ON CONFLICT (run_id, step_id) DO UPDATE SET status = EXCLUDED.status, attempt = EXCLUDED.attempt, input = EXCLUDED.input, output = EXCLUDED.output,
    error = EXCLUDED.error, taken = EXCLUDED.taken, directive = EXCLUDED.directive, uncertain = EXCLUDED.uncertain,
    started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, execute_ms = EXCLUDED.execute_ms`;

/**
 * One step's commit: receipts, events and the run's seq (and status when it ends) in ONE
 * statement. A step commit changes no indexed column of the run row (the lease is renewed by
 * LeaseKeeper, not here), so PostgreSQL updates it in place (HOT) without touching its indexes.
 */
const COMMIT_SQL = `
WITH u AS (
  UPDATE workflow_runs SET
    seq = seq + $4,
    status = COALESCE($5::varchar, status),
    lease_owner = CASE WHEN $5::varchar IS NULL THEN lease_owner ELSE NULL END,
    lease_expires_at = CASE WHEN $5::varchar IS NULL THEN lease_expires_at ELSE $9::timestamptz END,
    output = CASE WHEN $5::varchar IS NULL THEN output ELSE $6::jsonb END,
    error = CASE WHEN $5::varchar IS NULL THEN error ELSE $7::jsonb END,
    pause = CASE WHEN $5::varchar IS NULL THEN pause ELSE $8::jsonb END,
    finished_at = CASE WHEN $5::varchar IN ('completed', 'failed') THEN now() ELSE finished_at END,
    updated_at = now()
  WHERE id = $1 AND status = 'running' AND lease_owner = $2
  RETURNING seq
), r AS (${INSERT_RECEIPTS('$1', '$3', `u, ${receiptsFrom('$10')}`)}
), e AS (
  INSERT INTO workflow_run_events (run_id, seq, type, data)
  SELECT $1, u.seq - $4 + (x.value->>'rel')::int, x.value->>'type', x.value->'data' FROM u, jsonb_array_elements($11::jsonb) AS x(value)
)
SELECT seq FROM u`;

const CREATE_SQL = `
WITH w AS (
  INSERT INTO workflow_runs (id, entity_id, workflow_id, workflow_version, binding_id, workspace_id, owner_id, trigger_type, status, snapshot, trigger, variables,
    retry_of, root_run_id, retry_from_step, invalidated, lineage_attempt, inline, lease_owner, lease_expires_at, started_at, seq)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::varchar, $10::jsonb, $11::jsonb, $12::jsonb, $13, $14, $15, $16::jsonb, $17, $18, $19,
    now() + make_interval(secs => $20), CASE WHEN $9::varchar = 'running' THEN now() END, $23)
  RETURNING *
), r AS (${INSERT_RECEIPTS('$1', '$2', `w, ${receiptsFrom('$21')}`)}
), e AS (
  INSERT INTO workflow_run_events (run_id, seq, type, data)
  SELECT $1, (x.value->>'rel')::int, x.value->>'type', x.value->'data' FROM w, jsonb_array_elements($22::jsonb) AS x(value)
)
SELECT id, entity_id, status, seq FROM w`;

const CLAIM_SQL = `
WITH o AS (SELECT id, status AS old_status, lease_owner AS old_owner FROM workflow_runs WHERE id = $1 FOR UPDATE),
c AS (
  UPDATE workflow_runs r SET status = 'running', lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3),
    started_at = COALESCE(r.started_at, now()), seq = r.seq + 1, updated_at = now()
  FROM o WHERE r.id = o.id AND (
    (r.status IN ('pending', 'running') AND (r.lease_owner IS NULL OR r.lease_owner = $2 OR r.lease_expires_at < now()))
    OR (r.status = 'paused' AND r.pause->>'kind' = 'timer' AND (r.pause->>'resume_at')::timestamptz <= now()))
  RETURNING r.*, o.old_status, o.old_owner
), e AS (
  INSERT INTO workflow_run_events (run_id, seq, type, data)
  SELECT id, seq, CASE WHEN old_status = 'pending' THEN 'run.started' ELSE 'run.resumed' END,
    jsonb_build_object('status', 'running', 'previous_status', old_status, 'recovered_from', old_owner) FROM c
)
SELECT * FROM c`;

/**
 * Events as stored: a step's `step.started` directly followed by its `step.finished` (the
 * common case: a step that committed nothing before running) is ONE row of type `step` holding
 * both, at the seq of the finished frame (the started frame is seq - 1); every other event is a
 * row of its own. Half the rows per step; RunQueries.eventsAfter unpacks them into frames.
 * `rel` is the position of the row's last frame within the commit (1-based).
 */
export function packEvents(events: RunEvent[]): { type: string; data: Record<string, unknown>; rel: number }[] {
  const rows: { type: string; data: Record<string, unknown>; rel: number }[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const next = events[i + 1];
    if (e.type === 'step.started' && next?.type === 'step.finished' && next.data.step_id === e.data.step_id) {
      rows.push({ type: 'step', data: { started: e.data, finished: next.data }, rel: i + 2 });
      i++;
    } else rows.push({ type: e.type, data: e.data, rel: i + 1 });
  }
  return rows;
}

export type ClaimedRun = RunRow & { old_status: string; old_owner: string | null };
export type CreatedRun = Pick<RunRow, 'id' | 'entity_id' | 'status' | 'seq'>;

/** Run rows, receipts and events: the engine's writes (each one statement) and the reads it needs. */
export class RunStore {
  constructor(private readonly sql: Sql) {}

  /**
   * Commits a new run (with any receipts carried from an earlier attempt, and its first events).
   * Only after this resolves may its id go on the queue.
   */
  async create(run: NewRun, opts: { status: 'pending' | 'running'; leaseOwner: string | null; leaseSeconds: number; receipts?: ReceiptRow[]; events?: RunEvent[] }): Promise<CreatedRun> {
    const row = await this.sql.one<CreatedRun>(
      CREATE_SQL,
      [
        run.id, run.entity_id, run.workflow_id, run.workflow_version, run.binding_id, run.workspace_id, run.owner_id, run.trigger_type, opts.status,
        json(run.snapshot), json(run.trigger ?? null), json(run.variables), run.retry_of ?? null, run.root_run_id ?? run.id, run.retry_from_step ?? null,
        json(run.invalidated ?? null), run.lineage_attempt ?? 1, run.inline ?? false, opts.leaseOwner, opts.leaseSeconds,
        json(opts.receipts ?? []), json(packEvents(opts.events ?? [])), (opts.events ?? []).length,
      ],
      'wf_run_create',
    );
    return row!;
  }

  /** Takes the run for this worker, or undefined when another worker holds it or it is not runnable. */
  async claim(runId: string, owner: string, leaseSeconds: number): Promise<ClaimedRun | undefined> {
    return this.sql.one<ClaimedRun>(CLAIM_SQL, [runId, owner, leaseSeconds], 'wf_run_claim');
  }

  /** Commits receipts and events (and a final status) while this worker still holds the run; the new seq, else undefined. */
  async commit(run: { id: string; entity_id: string }, owner: string, c: Commit): Promise<number | undefined> {
    const f = c.finish;
    const row = await this.sql.one<{ seq: number }>(
      COMMIT_SQL,
      [run.id, owner, run.entity_id, c.events.length, f?.status ?? null, json(f?.output ?? null), json(f?.error ?? null), json(f?.pause ?? null), f?.resumeAt ?? null, json(c.receipts), json(packEvents(c.events))],
      'wf_run_commit',
    );
    return row?.seq;
  }

  async receipts(runId: string): Promise<ReceiptRow[]> {
    return this.sql.rows<ReceiptRow>('SELECT * FROM workflow_step_receipts WHERE run_id = $1 ORDER BY ord', [runId], 'wf_receipts');
  }

  async renewLeases(owner: string, leaseSeconds: number): Promise<number> {
    return this.sql.exec("UPDATE workflow_runs SET lease_expires_at = now() + make_interval(secs => $2) WHERE lease_owner = $1 AND status = 'running'", [owner, leaseSeconds]);
  }

  /**
   * Runs no worker holds: pending or running with an expired lease, and paused timers that are
   * due. Each is given a fresh short lease (so two sweepers do not both take it) and returned
   * with its recovery count, which makes a distinct queue id for the re-enqueue.
   */
  async sweep(leaseSeconds: number, limit = 500): Promise<{ id: string; recoveries: number; status: string }[]> {
    return this.sql.rows(
      `UPDATE workflow_runs SET recoveries = recoveries + 1, lease_owner = NULL, lease_expires_at = now() + make_interval(secs => $1)
       WHERE id IN (
         SELECT id FROM workflow_runs
         WHERE (status IN ('pending', 'running') AND lease_expires_at < now())
            OR (status = 'paused' AND pause->>'kind' = 'timer' AND lease_expires_at <= now())
         ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id, recoveries, status`,
      [leaseSeconds, limit],
    );
  }
}
