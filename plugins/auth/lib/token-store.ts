import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Role } from './models.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { hashToken, newToken } from './tokens.ts';

/**
 * The auth_tokens table. Tokens are looked up by hash across entities (the caller is not known
 * yet), so these are plain SQL rather than the tenant-scoped model; every statement that acts
 * for a caller names the caller's user or token.
 */

/** Creates a token for the user and returns it in clear: the only time it exists outside the client. */
export async function issueToken(db: Sequelize, user: { id: string; entity_id: string }, ttlSeconds: number, transaction?: Transaction): Promise<string> {
  const token = newToken();
  await db.query(
    `INSERT INTO auth_tokens (id, user_id, entity_id, token_hash, created_at, expires_at)
     VALUES (:id, :user_id, :entity_id, :token_hash, now(), now() + make_interval(secs => :ttl))`,
    { replacements: { id: newId(), user_id: user.id, entity_id: user.entity_id, token_hash: hashToken(token), ttl: ttlSeconds }, transaction },
  );
  return token;
}

/** Who presented a live token: what the gateway puts into ctx.meta.user. */
export interface SessionIdentity {
  id: string;
  entity_id: string;
  role: Role;
  email: string;
  /** the auth_tokens row of the presented token (not a secret): logout and refresh revoke it */
  token_id: string;
  /** when the token expires (ms since the epoch, by this node's clock) */
  expires_at: number;
}

interface TokenRow {
  token_id: string;
  expires_in_ms: number;
  last_used_at: Date | null;
  id: string;
  entity_id: string;
  role: Role;
  email: string;
  status: string;
}

/**
 * The identity behind a live token: known, not expired (by the database clock), not revoked, and
 * its user active. Marks the token used at most once a minute.
 */
export async function lookupToken(db: Sequelize, tokenHash: string): Promise<SessionIdentity | null> {
  const [row] = await db.query<TokenRow>(
    `SELECT t.id AS token_id, t.last_used_at,
            (EXTRACT(EPOCH FROM (t.expires_at - now())) * 1000)::float8 AS expires_in_ms,
            u.id, u.entity_id, u.role, u.email, u.status
       FROM auth_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_hash = :hash AND t.revoked_at IS NULL AND t.expires_at > now()`,
    { replacements: { hash: tokenHash }, type: QueryTypes.SELECT },
  );
  if (!row || row.status !== 'active') return null;
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > 60_000) {
    db.query('UPDATE auth_tokens SET last_used_at = now() WHERE id = :id', { replacements: { id: row.token_id } }).catch(() => undefined);
  }
  return { id: row.id, entity_id: row.entity_id, role: row.role, email: row.email, token_id: row.token_id, expires_at: Date.now() + Number(row.expires_in_ms) };
}

/** Revokes one live token of the user; false when it was already revoked or expired. */
export async function revokeToken(db: Sequelize, userId: string, tokenId: string, transaction?: Transaction): Promise<boolean> {
  const rows = await db.query(
    `UPDATE auth_tokens SET revoked_at = now()
      WHERE id = :tokenId AND user_id = :userId AND revoked_at IS NULL AND expires_at > now()
      RETURNING id`,
    { replacements: { tokenId, userId }, transaction, type: QueryTypes.SELECT },
  );
  return rows.length > 0;
}

/** Revokes every live token of the user, except `keepTokenId` when given. */
export async function revokeUserTokens(db: Sequelize, userId: string, opts: { keepTokenId?: string; transaction?: Transaction } = {}): Promise<void> {
  await db.query(
    `UPDATE auth_tokens SET revoked_at = now()
      WHERE user_id = :userId AND revoked_at IS NULL AND expires_at > now() AND (:keep::text IS NULL OR id <> :keep)`,
    { replacements: { userId, keep: opts.keepTokenId ?? null }, transaction: opts.transaction },
  );
}

/** Deletes tokens that expired or were revoked more than `days` ago (they can never be valid again). */
export async function purgeDeadTokens(db: Sequelize, days = 7): Promise<void> {
  await db.query(
    `DELETE FROM auth_tokens
      WHERE expires_at < now() - make_interval(days => :days) OR revoked_at < now() - make_interval(days => :days)`,
    { replacements: { days } },
  );
}
