import { randomUUID } from 'node:crypto';
import type { PooledSql } from '../db/pooled-sql.ts';
import type { InlineClaim } from './inline.ts';

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
const ASYNC_COMMIT = "(SELECT set_config('synchronous_commit', 'off', true)) AS commit_mode";

/** The usual case, a key never seen: one plain insert. */
const CLAIM_NEW = `INSERT INTO idempotency_keys (scope, key, fingerprint, claim_id, state, claimed_at, expires_at)
  SELECT $1, $2, $3, $4::uuid, 'in_flight', now(), now() + make_interval(secs => $5) FROM ${ASYNC_COMMIT}
  ON CONFLICT (scope, key) DO NOTHING RETURNING claim_id::text AS claimed`;

/**
 * A key in use: take it when expired or abandoned (claimed longer ago than $6 ms, its node
 * gone), and otherwise read what it holds. The outer SELECT sees the table as the statement
 * began: the row another request holds, or none.
 */
const CLAIM_TAKEN = `WITH claimed AS (
    UPDATE idempotency_keys
       SET fingerprint = $3, claim_id = $4::uuid, state = 'in_flight', status = NULL, content_type = NULL, location = NULL,
           body = NULL, claimed_at = now(), expires_at = now() + make_interval(secs => $5)
     WHERE scope = $1 AND key = $2
       AND (expires_at <= now() OR (state = 'in_flight' AND claimed_at <= now() - make_interval(secs => $6 / 1000.0)))
    RETURNING claim_id
  )
  SELECT (SELECT claim_id::text FROM claimed) AS claimed, k.fingerprint, k.state, k.status, k.content_type, k.location, k.body
    FROM ${ASYNC_COMMIT} LEFT JOIN idempotency_keys k ON k.scope = $1 AND k.key = $2`;

const COMPLETE = `UPDATE idempotency_keys SET state = 'done', status = $4, content_type = $5, location = $6, body = $7
  FROM ${ASYNC_COMMIT} WHERE scope = $1 AND key = $2 AND claim_id = $3::uuid`;

const RELEASE = `DELETE FROM idempotency_keys USING ${ASYNC_COMMIT} WHERE scope = $1 AND key = $2 AND claim_id = $3::uuid`;

type Row = { claimed: string | null; fingerprint: string | null; state: string | null; status: number | null; content_type: string | null; location: string | null; body: Buffer | null };

/**
 * The idempotency keys in PostgreSQL (embedded PGlite alike), so every gateway node sees the
 * same ones. A claim sits before the action on every keyed request, so it is raw SQL on the
 * pool (prepared on a real PostgreSQL), one insert for a new key; only a key already in use
 * takes a second statement.
 */
export class IdempotencyStore {
  constructor(
    private readonly sql: () => PooledSql,
    private readonly opts: { ttlSeconds: number; abandonAfterMs: number },
  ) {}

  async claim(scope: string, key: string, fingerprint: string): Promise<Claim> {
    const claimId = randomUUID();
    const fresh = await this.sql().one<{ claimed: string }>(CLAIM_NEW, [scope, key, fingerprint, claimId, this.opts.ttlSeconds], 'idempotency_claim_new');
    if (fresh) return { outcome: 'claimed', claimId: fresh.claimed };
    for (let attempt = 0; attempt < 2; attempt++) {
      const row = await this.sql().one<Row>(CLAIM_TAKEN, [scope, key, fingerprint, claimId, this.opts.ttlSeconds, this.opts.abandonAfterMs], 'idempotency_claim_taken');
      if (row?.claimed) return { outcome: 'claimed', claimId: row.claimed };
      // the key was deleted (released, pruned) since the insert: try to take it anew
      if (!row || row.state === null) {
        const again = await this.sql().one<{ claimed: string }>(CLAIM_NEW, [scope, key, fingerprint, claimId, this.opts.ttlSeconds], 'idempotency_claim_new');
        if (again) return { outcome: 'claimed', claimId: again.claimed };
        continue;
      }
      if (row.fingerprint !== fingerprint) return { outcome: 'mismatch' };
      if (row.state !== 'done') return { outcome: 'in_flight' };
      return { outcome: 'replay', response: { status: row.status!, contentType: row.content_type, location: row.location, body: row.body } };
    }
    return { outcome: 'in_flight' };
  }

  /** A claim for an action to take in its own write (inline.ts), with this store's lifetimes. */
  inlineClaim(k: Pick<InlineClaim, 'action' | 'scope' | 'key' | 'fingerprint'>): InlineClaim {
    return { ...k, claim_id: randomUUID(), ttl_seconds: this.opts.ttlSeconds, abandon_after_ms: this.opts.abandonAfterMs };
  }

  /** Keeps the first response of a claim; false when the claim was taken over meanwhile. */
  async complete(scope: string, key: string, claimId: string, response: StoredResponse): Promise<boolean> {
    const changed = await this.sql().exec(COMPLETE, [scope, key, claimId, response.status, response.contentType, response.location, response.body], 'idempotency_complete');
    return changed > 0;
  }

  /** Frees a claim whose request failed, so the same key may be tried again. */
  async release(scope: string, key: string, claimId: string): Promise<void> {
    await this.sql().exec(RELEASE, [scope, key, claimId], 'idempotency_release');
  }

  /** Deletes expired keys; returns how many. */
  async prune(): Promise<number> {
    return this.sql().exec('DELETE FROM idempotency_keys WHERE expires_at <= now()');
  }
}
