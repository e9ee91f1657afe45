import type { MigrationContext } from '../../../kernel/db/migrations.ts';

/**
 * `workflow_commit_runs(batch jsonb)`: the commit of one step, or of several runs' steps at
 * once (group commit, kernel/db/group-commit.ts), in ONE statement. For each record, in order: the
 * run row's seq (and its final status, output, error and pause when it ends) is updated while
 * the committing worker still holds the run (status running, its lease owner), then its
 * receipts are upserted and its events appended at the seqs that update reserved. A record
 * whose run is no longer this worker's is skipped and missing from the answer.
 *
 * A function rather than one set-based statement: each record's run is found by primary-key
 * equality with a plan PL/pgSQL caches per connection. The set-based form (UPDATE ... FROM the
 * recordset) had a plan that depends on table statistics: cached while the table was small,
 * it scanned the whole table for every batch until the next ANALYZE. Two records of one run
 * are applied one after the other, each seeing the last.
 *
 * A step commit changes no indexed column of the run row, so PostgreSQL updates it in place
 * (HOT) without touching its indexes; only the final one (status, lease) does.
 */
export async function up({ context: { sequelize, transaction } }: { context: MigrationContext }): Promise<void> {
  // a run's receipts, inserted or (same step again) replaced: the one writer of receipts, for
  // new runs (store/runs.ts CREATE_SQL) and step commits alike. PL/pgSQL, not SQL: it keeps its
  // plan per connection, where a SQL function plans its INSERT again on every call
  await sequelize.query(
    `CREATE FUNCTION workflow_put_receipts(run uuid, entity text, receipts jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
     BEGIN
       INSERT INTO workflow_step_receipts (run_id, step_id, entity_id, status, attempt, input, output, error, taken, directive, uncertain, carried_from, started_at, finished_at, execute_ms)
       SELECT run, x.step_id, entity, x.status, x.attempt, x.input, x.output, x.error, x.taken, x.directive, x.uncertain, x.carried_from, x.started_at, x.finished_at, x.execute_ms
       FROM jsonb_to_recordset(receipts) AS x(step_id text, status text, attempt int, input jsonb, output jsonb, error jsonb, taken jsonb, directive jsonb,
         uncertain boolean, carried_from uuid, started_at timestamptz, finished_at timestamptz, execute_ms real)
       ON CONFLICT (run_id, step_id) DO UPDATE SET status = EXCLUDED.status, attempt = EXCLUDED.attempt, input = EXCLUDED.input, output = EXCLUDED.output,
         error = EXCLUDED.error, taken = EXCLUDED.taken, directive = EXCLUDED.directive, uncertain = EXCLUDED.uncertain,
         started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, execute_ms = EXCLUDED.execute_ms;
     END
     $fn$`,
    { transaction },
  );
  await sequelize.query(
    `CREATE FUNCTION workflow_commit_runs(batch jsonb) RETURNS TABLE (committed_run uuid, new_seq integer) LANGUAGE plpgsql AS $fn$
     DECLARE
       c record;
     BEGIN
       FOR c IN SELECT * FROM jsonb_to_recordset(batch) AS x(run_id uuid, owner text, entity_id text, n int, status varchar, output jsonb, error jsonb,
           pause jsonb, resume_at timestamptz, receipts jsonb, events jsonb) LOOP
         UPDATE workflow_runs r SET
           seq = r.seq + c.n,
           status = COALESCE(c.status, r.status),
           lease_owner = CASE WHEN c.status IS NULL THEN r.lease_owner ELSE NULL END,
           lease_expires_at = CASE WHEN c.status IS NULL THEN r.lease_expires_at ELSE c.resume_at END,
           output = CASE WHEN c.status IS NULL THEN r.output ELSE COALESCE(c.output, 'null'::jsonb) END,
           error = CASE WHEN c.status IS NULL THEN r.error ELSE COALESCE(c.error, 'null'::jsonb) END,
           pause = CASE WHEN c.status IS NULL THEN r.pause ELSE COALESCE(c.pause, 'null'::jsonb) END,
           finished_at = CASE WHEN c.status IN ('completed', 'failed') THEN now() ELSE r.finished_at END,
           updated_at = now()
         WHERE r.id = c.run_id AND r.status = 'running' AND r.lease_owner = c.owner
         RETURNING r.seq INTO new_seq;
         CONTINUE WHEN NOT FOUND;
         committed_run := c.run_id;
         PERFORM workflow_put_receipts(c.run_id, c.entity_id, c.receipts);
         INSERT INTO workflow_run_events (run_id, seq, type, data)
         SELECT c.run_id, new_seq - c.n + (x.value->>'rel')::int, x.value->>'type', x.value->'data' FROM jsonb_array_elements(c.events) AS x(value);
         RETURN NEXT;
       END LOOP;
     END
     $fn$`,
    { transaction },
  );
}
