import { json, type Sql } from './sql.ts';
import type { RunRow } from './run-types.ts';

/** A change made from the API to a run no worker is driving (cancel, resume, reconcile), each one statement. */
export class RunControl {
  constructor(private readonly sql: Sql) {}

  /** pending, running or paused -> cancelled (also when its worker vanished: no lease is needed). */
  async cancel(entityId: string, id: string, by: string): Promise<RunRow | undefined> {
    return this.sql.one<RunRow>(
      `WITH u AS (
         UPDATE workflow_runs SET status = 'cancelled', finished_at = now(), lease_owner = NULL, lease_expires_at = NULL, pause = NULL, seq = seq + 1, updated_at = now()
         WHERE entity_id = $1 AND id = $2 AND status IN ('pending', 'running', 'paused') RETURNING *
       ), e AS (
         INSERT INTO workflow_run_events (run_id, seq, type, data) SELECT id, seq, 'run.finished', jsonb_build_object('status', 'cancelled', 'cancelled_by', $3::text) FROM u
       ) SELECT * FROM u`,
      [entityId, id, by],
    );
  }

  /**
   * Completes a waiting step and hands the run back to the queue (paused -> running, no lease),
   * or, for a rejected approval, fails the step and the run. One statement: the run must still
   * be paused on that step.
   */
  async settleWait(entityId: string, id: string, stepId: string, outcome: { status: 'completed'; output: unknown; taken: string[] } | { status: 'failed'; error: unknown }): Promise<RunRow | undefined> {
    const completed = outcome.status === 'completed';
    return this.sql.one<RunRow>(
      `WITH r AS (
         UPDATE workflow_step_receipts SET status = $4::varchar, output = $5::jsonb, error = $6::jsonb, taken = $7::jsonb, finished_at = now()
         WHERE run_id = $2 AND step_id = $3 AND status = 'waiting' AND entity_id = $1 RETURNING step_id
       ), u AS (
         UPDATE workflow_runs SET status = $8::varchar, pause = NULL, seq = seq + 2, lease_owner = NULL,
           lease_expires_at = CASE WHEN $8::varchar = 'running' THEN now() ELSE NULL END,
           finished_at = CASE WHEN $8::varchar = 'failed' THEN now() ELSE NULL END,
           error = CASE WHEN $8::varchar = 'failed' THEN $6::jsonb ELSE error END, updated_at = now()
         FROM r WHERE entity_id = $1 AND id = $2 AND status = 'paused' RETURNING workflow_runs.*
       ), e AS (
         INSERT INTO workflow_run_events (run_id, seq, type, data)
         SELECT id, seq - 1, 'step.finished', jsonb_build_object('step_id', $3::text, 'status', $4::varchar) FROM u
         UNION ALL SELECT id, seq, CASE WHEN $8::varchar = 'running' THEN 'run.resumed' ELSE 'run.finished' END, jsonb_build_object('status', $8::varchar) FROM u
       ) SELECT * FROM u`,
      [
        entityId, id, stepId, outcome.status,
        json(completed ? outcome.output : null), json(completed ? null : outcome.error), json(completed ? outcome.taken : []),
        completed ? 'running' : 'failed',
      ],
    );
  }

  /**
   * The owner approved a runtime-approval wait: the approval is recorded on the waiting receipt
   * and the run goes back to the queue (paused -> running), where the worker repeats exactly the
   * saved invocation. One statement: the run must still be paused on that step.
   */
  async approveInvocation(entityId: string, id: string, stepId: string, approval: unknown): Promise<RunRow | undefined> {
    return this.sql.one<RunRow>(
      `WITH r AS (
         UPDATE workflow_step_receipts SET directive = jsonb_set(directive, '{pause,approval}', $4::jsonb)
         WHERE run_id = $2 AND step_id = $3 AND status = 'waiting' AND entity_id = $1 AND directive->'pause'->>'kind' IN ('runtime_approval', 'question') RETURNING step_id
       ), u AS (
         UPDATE workflow_runs SET status = 'running', pause = NULL, seq = seq + 1, lease_owner = NULL, lease_expires_at = now(), updated_at = now()
         FROM r WHERE entity_id = $1 AND id = $2 AND status = 'paused' RETURNING workflow_runs.*
       ), e AS (
         INSERT INTO workflow_run_events (run_id, seq, type, data)
         SELECT id, seq, 'run.resumed', jsonb_build_object('status', 'running', 'approved_step', $3::text, 'decided_by', $4::jsonb->>'decided_by') FROM u
       ) SELECT * FROM u`,
      [entityId, id, stepId, json(approval)],
    );
  }

  /** Records how an uncertain step really ended (reconciled with an output, or failed). */
  async reconcile(entityId: string, runId: string, stepId: string, succeeded: boolean, output: unknown, taken: string[], note: string | null): Promise<boolean> {
    const n = await this.sql.exec(
      `UPDATE workflow_step_receipts SET status = $4::varchar, output = $5::jsonb, taken = $6::jsonb,
         error = CASE WHEN $4::varchar = 'failed' THEN jsonb_build_object('message', COALESCE($7::text, 'reconciled as failed'), 'code', 'RECONCILED_FAILED') ELSE jsonb_build_object('reconciled', true, 'note', $7::text) END
       WHERE entity_id = $1 AND run_id = $2 AND step_id = $3 AND status = 'needs_reconciliation'`,
      [entityId, runId, stepId, succeeded ? 'reconciled' : 'failed', json(succeeded ? (output ?? null) : null), json(succeeded ? taken : []), note],
    );
    return n > 0;
  }
}
