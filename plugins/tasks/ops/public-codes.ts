import { createHash, randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { notFound } from '../errors.ts';
import { iso } from '../db/task-row.ts';

/**
 * Public session codes for external reviewers of one task: 256 random bits, shown once at
 * minting, stored only as a SHA-256 hash, valid for 7 days unless revoked. An unknown,
 * expired or revoked code is simply not found.
 */

export const PUBLIC_CODE_LIFETIME_MS = 7 * 24 * 3600 * 1000;

export interface PublicCodeRow {
  id: string;
  entity_id: string;
  task_id: string;
  label: string;
  created_by: string | null;
  expires_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

export function hashCode(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

export interface PublicCodeView {
  id: string;
  task_id: string;
  label: string;
  state: 'active' | 'expired' | 'revoked';
  created_by: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string | null;
}

export function codeView(row: PublicCodeRow, now: Date = new Date()): PublicCodeView {
  const state: PublicCodeView['state'] = row.revoked_at ? 'revoked' : new Date(row.expires_at) <= now ? 'expired' : 'active';
  return {
    id: row.id,
    task_id: row.task_id,
    label: row.label,
    state,
    created_by: row.created_by,
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
    created_at: iso(row.created_at),
  };
}

export async function mintCode(db: Sequelize, entityId: string, taskId: string, label: string, createdBy: string, now = new Date()): Promise<{ code: string; row: PublicCodeRow }> {
  const code = randomBytes(32).toString('base64url');
  const [row] = await db.query<PublicCodeRow>(
    `INSERT INTO task_public_codes (id, entity_id, task_id, code_hash, label, created_by, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id, entity_id, task_id, label, created_by, expires_at, revoked_at, last_used_at, created_at`,
    { bind: [newId(), entityId, taskId, hashCode(code), label, createdBy, new Date(now.getTime() + PUBLIC_CODE_LIFETIME_MS), now], type: QueryTypes.SELECT },
  );
  return { code, row };
}

/** The live code's row (404 for an unknown, expired or revoked one); marks it used. */
export async function resolveCode(db: Sequelize, code: string, now = new Date()): Promise<PublicCodeRow> {
  const [row] = await db.query<PublicCodeRow>(
    `UPDATE task_public_codes SET last_used_at = $2 WHERE code_hash = $1 AND revoked_at IS NULL AND expires_at > $2
     RETURNING id, entity_id, task_id, label, created_by, expires_at, revoked_at, last_used_at, created_at`,
    { bind: [hashCode(code), now], type: QueryTypes.SELECT },
  );
  if (!row) throw notFound('public task session', 'this code');
  return row;
}
