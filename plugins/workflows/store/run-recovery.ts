import { LIVE_PRESENCE_KEYS_SQL } from '../../../kernel/db/presence.ts';
import type { Sql } from './sql.ts';

/** the presence key in a lease holder's name (engine/engine.ts leaseOwnerName); NULL for a name without one */
const OWNER_KEY = "substring(lease_owner from '#([0-9]{1,10})$')::int8";

/**
 * Runs whose lease holder is gone, taken at once: running runs whose holder's process presence
 * is gone (it died: kernel/db/presence.ts) or whose lease ran out, and timer waits that are due.
 * Each is given a fresh short lease with no holder, so a second node recovering at the same
 * time skips it (SKIP LOCKED, then the changed row no longer matches), and returned with its
 * recovery count, which makes a distinct queue id for the re-enqueue.
 */
const TAKE_ABANDONED_SQL = `
WITH live AS MATERIALIZED (${LIVE_PRESENCE_KEYS_SQL})
UPDATE workflow_runs SET recoveries = recoveries + 1, lease_owner = NULL, lease_expires_at = now() + make_interval(secs => $1)
WHERE id IN (
  SELECT id FROM workflow_runs
  WHERE (status = 'running' AND (lease_expires_at < now() OR ${OWNER_KEY} NOT IN (SELECT key FROM live)))
     OR (status = 'paused' AND pause->>'kind' = 'timer' AND lease_expires_at <= now())
  ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
RETURNING id, recoveries`;

/**
 * Runs that only a queue entry moves on: pending ones, and timer waits not yet due (a paused
 * timer's lease_expires_at is its resume time). Keyset pages on (lease_expires_at, id), the
 * order of the index of unfinished runs; `at` is text, so a page ends exactly (microseconds) where the next begins.
 */
const QUEUED_SQL = `
SELECT id, status, pause->>'resume_at' AS resume_at, lease_expires_at::text AS at FROM workflow_runs
WHERE (status = 'pending' OR (status = 'paused' AND pause->>'kind' = 'timer' AND lease_expires_at > now()))
  AND (lease_expires_at, id) > ($1::timestamptz, $2::uuid)
ORDER BY lease_expires_at, id LIMIT $3`;

export type QueuedRun = { id: string; status: 'pending' | 'paused'; resume_at: string | null; at: string };

/** A page position of queuedAfter: start from QUEUED_START, then pass the last row of a page. */
export type QueuedCursor = { at: string; id: string };
export const QUEUED_START: QueuedCursor = { at: '-infinity', id: '00000000-0000-0000-0000-000000000000' };

/** What a work node reads from the rows when it starts, to put every unfinished run back on the queue. */
export class RunRecovery {
  constructor(private readonly sql: Sql) {}

  takeAbandoned(leaseSeconds: number, limit: number): Promise<{ id: string; recoveries: number }[]> {
    return this.sql.rows(TAKE_ABANDONED_SQL, [leaseSeconds, limit]);
  }

  queuedAfter(cursor: QueuedCursor, limit: number): Promise<QueuedRun[]> {
    return this.sql.rows<QueuedRun>(QUEUED_SQL, [cursor.at, cursor.id, limit]);
  }
}
