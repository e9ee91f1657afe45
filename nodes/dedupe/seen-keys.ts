import { QueryTypes, type Sequelize } from 'sequelize';

export interface SeenScope {
  entity_id: string;
  /** `binding:<id>/<step>` or `workflow:<id>/<step>` */
  scope: string;
  run_id: string;
  step_id: string;
  /** keys older than this many days count as unseen */
  forget_after_days: number;
}

/**
 * Records the key hashes and answers those new to this scope: never seen, seen longer ago than
 * the retention, or let through by this same run and step before (a repeat of the step). One
 * statement, so concurrent runs agree on who saw a key first.
 */
export async function newKeys(db: Sequelize, s: SeenScope, hashes: string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  await db.query('DELETE FROM node_dedupe_seen WHERE entity_id = $1 AND scope = $2 AND seen_at < now() - make_interval(days => $3)', { bind: [s.entity_id, s.scope, s.forget_after_days], type: QueryTypes.DELETE });
  const rows = await db.query<{ key_hash: string }>(
    `INSERT INTO node_dedupe_seen (entity_id, scope, key_hash, run_id, step_id)
       SELECT $1, $2, k, $3, $4 FROM unnest($5::text[]) AS k
     ON CONFLICT (entity_id, scope, key_hash) DO UPDATE SET seen_at = now()
       WHERE node_dedupe_seen.run_id = EXCLUDED.run_id AND node_dedupe_seen.step_id = EXCLUDED.step_id
     RETURNING key_hash`,
    { bind: [s.entity_id, s.scope, s.run_id, s.step_id, hashes], type: QueryTypes.SELECT },
  );
  return new Set(rows.map((r) => r.key_hash.trim()));
}
