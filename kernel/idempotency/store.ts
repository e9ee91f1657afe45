import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';

/** A response kept for replay. */
export interface StoredResponse {
  status: number;
  contentType: string | null;
  location: string | null;
  body: Buffer | null;
}

/** What a claim found: the key is this request's to run, or another's (running or answered). */
export type Claim =
  | { outcome: 'claimed'; claimId: string }
  | { outcome: 'in_flight' }
  | { outcome: 'mismatch' }
  | { outcome: 'replay'; response: StoredResponse };

/**
 * Evaluated inside a statement, makes its own (implicit) transaction commit without waiting for
 * the WAL flush. A key's rows are bookkeeping beside an effect that commits durably on its own;
 * waiting for two more disk flushes per keyed call would double the cost of a create. What this
 * risks: a crash of PostgreSQL itself (not of a node) can forget the keys of the last moment.
 */
const ASYNC_COMMIT = "set_config('synchronous_commit', 'off', true)";

type Row = { claimed: string | null; fingerprint: string | null; state: string | null; status: number | null; content_type: string | null; location: string | null; body: Buffer | null };

/**
 * The idempotency keys in PostgreSQL (embedded PGlite alike), so every gateway node sees the
 * same ones. A claim is one statement: it takes a free key, an expired one, or one whose request
 * was abandoned (claimed longer ago than `abandonAfterMs`, its node gone), and otherwise reads
 * what the key holds.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: () => Sequelize,
    private readonly opts: { ttlSeconds: number; abandonAfterMs: number },
  ) {}

  async claim(scope: string, key: string, fingerprint: string): Promise<Claim> {
    const claimId = randomUUID();
    const replacements = { scope, key, fingerprint, claimId, ttl: this.opts.ttlSeconds, abandon: this.opts.abandonAfterMs };
    for (let attempt = 0; attempt < 2; attempt++) {
      // the outer SELECT sees the table as the statement began: the row another request holds, or none
      const [row] = await this.db().query<Row>(
        `WITH claimed AS (
           INSERT INTO idempotency_keys (scope, key, fingerprint, claim_id, state, claimed_at, expires_at)
           VALUES (:scope, :key, :fingerprint, :claimId, 'in_flight', now(), now() + make_interval(secs => :ttl))
           ON CONFLICT (scope, key) DO UPDATE
             SET fingerprint = EXCLUDED.fingerprint, claim_id = EXCLUDED.claim_id, state = 'in_flight', status = NULL,
                 content_type = NULL, location = NULL, body = NULL, claimed_at = now(), expires_at = EXCLUDED.expires_at
             WHERE idempotency_keys.expires_at <= now()
                OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.claimed_at <= now() - make_interval(secs => :abandon / 1000.0))
           RETURNING claim_id
         )
         SELECT (SELECT claim_id::text FROM claimed) AS claimed, k.fingerprint, k.state, k.status, k.content_type, k.location, k.body
           FROM (SELECT ${ASYNC_COMMIT}) AS commit_mode LEFT JOIN idempotency_keys k ON k.scope = :scope AND k.key = :key`,
        { replacements, type: QueryTypes.SELECT },
      );
      if (row.claimed) return { outcome: 'claimed', claimId: row.claimed };
      // a concurrent first claim committed after this statement's snapshot: read it again
      if (row.state === null) continue;
      if (row.fingerprint !== fingerprint) return { outcome: 'mismatch' };
      if (row.state !== 'done') return { outcome: 'in_flight' };
      return { outcome: 'replay', response: { status: row.status!, contentType: row.content_type, location: row.location, body: row.body } };
    }
    return { outcome: 'in_flight' };
  }

  /** Keeps the first response of a claim; false when the claim was taken over meanwhile. */
  async complete(scope: string, key: string, claimId: string, response: StoredResponse): Promise<boolean> {
    const [, result] = await this.db().query(
      `UPDATE idempotency_keys SET state = 'done', status = :status, content_type = :contentType, location = :location, body = :body
        WHERE scope = :scope AND key = :key AND claim_id = :claimId AND ${ASYNC_COMMIT} IS NOT NULL`,
      { replacements: { scope, key, claimId, status: response.status, contentType: response.contentType, location: response.location, body: response.body } },
    );
    return rowCount(result) > 0;
  }

  /** Frees a claim whose request failed, so the same key may be tried again. */
  async release(scope: string, key: string, claimId: string): Promise<void> {
    await this.db().query(`DELETE FROM idempotency_keys WHERE scope = :scope AND key = :key AND claim_id = :claimId AND ${ASYNC_COMMIT} IS NOT NULL`, { replacements: { scope, key, claimId } });
  }

  /** Deletes expired keys; returns how many. */
  async prune(): Promise<number> {
    const [, result] = await this.db().query('DELETE FROM idempotency_keys WHERE expires_at <= now()');
    return rowCount(result);
  }
}

/** rows a raw UPDATE or DELETE touched (sequelize hands back the driver's result) */
function rowCount(result: unknown): number {
  return Number((result as { rowCount?: number } | null)?.rowCount ?? 0);
}
