import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * The group commit's statements work on a batch as a set instead of record by record.
 *
 * `workflow_commit_runs` (002) looped over its records: an UPDATE, a receipts INSERT and an
 * events INSERT for each one, so a batch of 15 step commits started 45 statements. Starting a
 * statement (executor set-up, projections) took more of the database's time than the rows it
 * wrote. Now a batch is one UPDATE of its runs, with their events appended in the same
 * statement, and one receipts INSERT. The answer is as before: a row per applied record, in
 * record order; a record whose run is no longer this worker's is missing from it.
 *
 * A batch holds at most one record per run: the group commit (store/runs.ts, `keyOf`) puts a
 * run's next commit in a later statement. A second record of a run in one batch would be
 * missing from the answer, as not applied, and the runs would be left as the other record set.
 *
 * The UPDATE joins the batch to workflow_runs. PL/pgSQL caches its plan per connection, and a
 * plan chosen while the table was small would scan it whole for every batch (or, as a bitmap
 * scan, build a bitmap per record: 0.3 ms more per step commit in the queue bench). The function
 * therefore turns off seq scans, bitmap scans, hash joins and merge joins for its own
 * statements. That leaves the one plan that fits a batch of at most a few dozen records: a
 * primary-key index scan per record.
 * Both functions also keep that plan: left to choose, PostgreSQL planned their statements again
 * on every call (a custom plan for each batch), which made a one-record commit 0.1 ms slower.
 *
 * `workflow_put_receipts(records, only)` is still the one writer of receipts. It now takes the
 * records of a statement, each `{run_id, entity_id, receipts}`, and writes the receipts of all
 * of them (or of the records at the 1-based positions in `only`) in one INSERT, in record order.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  const receiptColumns = 'step_id text, status text, attempt int, input jsonb, output jsonb, error jsonb, taken jsonb, directive jsonb, uncertain boolean, carried_from uuid, started_at timestamptz, finished_at timestamptz, execute_ms real';
  const statements = [
    'DROP FUNCTION workflow_put_receipts(uuid, text, jsonb)',
    `CREATE FUNCTION workflow_put_receipts(records jsonb, only_positions bigint[]) RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
     BEGIN
       INSERT INTO workflow_step_receipts (run_id, step_id, entity_id, status, attempt, input, output, error, taken, directive, uncertain, carried_from, started_at, finished_at, execute_ms)
       SELECT (r.value->>'run_id')::uuid, x.step_id, r.value->>'entity_id', x.status, x.attempt, x.input, x.output, x.error, x.taken, x.directive, x.uncertain, x.carried_from,
         x.started_at, x.finished_at, x.execute_ms
       FROM jsonb_array_elements(records) WITH ORDINALITY AS r(value, position), jsonb_to_recordset(r.value->'receipts') AS x(${receiptColumns})
       WHERE only_positions IS NULL OR r.position = ANY(only_positions)
       ON CONFLICT (run_id, step_id) DO UPDATE SET status = EXCLUDED.status, attempt = EXCLUDED.attempt, input = EXCLUDED.input, output = EXCLUDED.output,
         error = EXCLUDED.error, taken = EXCLUDED.taken, directive = EXCLUDED.directive, uncertain = EXCLUDED.uncertain,
         started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, execute_ms = EXCLUDED.execute_ms;
     END
     $fn$`,
    `CREATE OR REPLACE FUNCTION workflow_commit_runs(batch jsonb) RETURNS TABLE (committed_run uuid, new_seq integer) LANGUAGE plpgsql
     SET enable_seqscan = off SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET plan_cache_mode = force_generic_plan AS $fn$
     DECLARE
       run_ids uuid[];
       seqs int[];
       positions bigint[];
     BEGIN
       WITH x AS (
         SELECT * FROM ROWS FROM (jsonb_to_recordset(batch) AS (run_id uuid, owner text, n int, status varchar, output jsonb, error jsonb, pause jsonb, resume_at timestamptz, events jsonb))
           WITH ORDINALITY AS b(run_id, owner, n, status, output, error, pause, resume_at, events, position)
       ), u AS (
         UPDATE workflow_runs r SET
           seq = r.seq + x.n,
           status = COALESCE(x.status, r.status),
           lease_owner = CASE WHEN x.status IS NULL THEN r.lease_owner ELSE NULL END,
           lease_expires_at = CASE WHEN x.status IS NULL THEN r.lease_expires_at ELSE x.resume_at END,
           output = CASE WHEN x.status IS NULL THEN r.output ELSE COALESCE(x.output, 'null'::jsonb) END,
           error = CASE WHEN x.status IS NULL THEN r.error ELSE COALESCE(x.error, 'null'::jsonb) END,
           pause = CASE WHEN x.status IS NULL THEN r.pause ELSE COALESCE(x.pause, 'null'::jsonb) END,
           finished_at = CASE WHEN x.status IN ('completed', 'failed') THEN now() ELSE r.finished_at END,
           updated_at = now()
         FROM x
         WHERE r.id = x.run_id AND r.status = 'running' AND r.lease_owner = x.owner
         RETURNING r.id, r.seq, x.n, x.events, x.position
       ), e AS (
         INSERT INTO workflow_run_events (run_id, seq, type, data)
         SELECT u.id, u.seq - u.n + (v.value->>'rel')::int, v.value->>'type', v.value->'data' FROM u, jsonb_array_elements(u.events) AS v(value)
       )
       SELECT array_agg(u.id ORDER BY u.position), array_agg(u.seq ORDER BY u.position), array_agg(u.position ORDER BY u.position)
       INTO run_ids, seqs, positions FROM u;
       IF positions IS NOT NULL THEN
         PERFORM workflow_put_receipts(batch, positions);
       END IF;
       RETURN QUERY SELECT t.id, t.seq FROM unnest(run_ids, seqs) AS t(id, seq);
     END
     $fn$`,
  ];
  for (const sql of statements) await sequelize.query(sql, { transaction });
}
