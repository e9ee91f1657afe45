import type { PooledSql } from '../../kernel/db/pooled-sql.ts';
import { GroupCommit } from '../../kernel/db/group-commit.ts';
import { newId } from '../../kernel/tenancy/ids.ts';

/** One answered model call, as model_calls keeps it. */
export interface CallRecord {
  entity_id: string;
  api_key_id: string;
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  purpose: string;
  workspace_id: string | null;
  agent_id: string | null;
  run_id: string | null;
}

/** A key's use: when a call took it. */
export interface KeyStamp {
  entity_id: string;
  id: string;
  at: Date;
}

export interface UsageWrites {
  /** records the call's token counts (resolves once the row is committed) */
  record(call: CallRecord): Promise<void>;
  /** stamps the key as used at `at` (does not count as an update of the key) */
  stamp(key: KeyStamp): Promise<void>;
}

/** a SQLSTATE: PostgreSQL refused the statement, so none of its rows were written */
const refusedByDatabase = (err: unknown): boolean => typeof (err as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((err as { code: string }).code);

const COLUMNS = ['id', 'entity_id', 'api_key_id', 'provider', 'model', 'input_tokens', 'output_tokens', 'purpose', 'workspace_id', 'agent_id', 'run_id'] as const;

/**
 * The bookkeeping writes of model calls, group-committed (kernel/db/group-commit.ts): a call
 * alone writes at once, calls that end or start while a write is at the database go together in
 * the next statement. Hundreds of streams on a node otherwise cost a round trip each for their
 * usage row and their key stamp.
 */
export function usageWrites(sql: PooledSql): UsageWrites {
  const records = new GroupCommit<CallRecord, void>(
    async (calls) => {
      const values: unknown[] = [];
      const rows = calls.map((c) => {
        const row = [newId(), c.entity_id, c.api_key_id, c.provider, c.model.slice(0, 200), c.input_tokens, c.output_tokens, c.purpose, c.workspace_id, c.agent_id, c.run_id];
        const at = values.length;
        values.push(...row);
        return `(${row.map((_, i) => `$${at + i + 1}`).join(', ')})`;
      });
      await sql.exec(`INSERT INTO model_calls (${COLUMNS.join(', ')}) VALUES ${rows.join(', ')}`, values);
      return calls.map(() => undefined);
    },
    { maxInFlight: 1, maxBatch: 100, rolledBack: refusedByDatabase },
  );
  const stamps = new GroupCommit<KeyStamp, void>(
    async (keys) => {
      // one row per key: the latest use
      const latest = new Map<string, KeyStamp>();
      for (const k of keys) if (!latest.has(k.id) || latest.get(k.id)!.at < k.at) latest.set(k.id, k);
      const list = [...latest.values()];
      await sql.exec(
        `UPDATE model_api_keys k SET last_used_at = v.at
           FROM unnest($1::varchar[], $2::uuid[], $3::timestamptz[]) AS v(entity_id, id, at)
          WHERE k.entity_id = v.entity_id AND k.id = v.id`,
        [list.map((k) => k.entity_id), list.map((k) => k.id), list.map((k) => k.at)],
        'models_stamp_keys',
      );
      return keys.map(() => undefined);
    },
    { maxInFlight: 1, maxBatch: 200, rolledBack: refusedByDatabase },
  );
  return { record: (call) => records.submit(call), stamp: (key) => stamps.submit(key) };
}
