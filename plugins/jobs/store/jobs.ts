import type { Transaction } from 'sequelize';
import { newId } from '../../../kernel/tenancy/ids.ts';
import type { Sql } from './sql.ts';
import type { JobRow, JobSource, JobValues } from './types.ts';

export const STATUS_FILTERS = ['all', 'enabled', 'paused', 'attention'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

const ATTENTION = '(enabled AND (consecutive_failures > 0 OR missed_at IS NOT NULL))';
const STATUS_SQL: Record<StatusFilter, string> = { all: 'true', enabled: 'enabled', paused: 'NOT enabled', attention: ATTENTION };

const VALUE_COLUMNS = [
  'name', 'description', 'schedule_kind', 'cron', 'timezone', 'every_seconds', 'anchor_at', 'at', 'delete_after_run', 'executor', 'payload_message', 'config',
  'workspace_id', 'conversation_id', 'agent_id', 'goal_id', 'deliverables', 'overlap', 'enabled',
] as const satisfies readonly (keyof JobValues)[];

const JSON_COLUMNS = new Set(['config', 'deliverables']);
const bindValue = (values: JobValues, column: (typeof VALUE_COLUMNS)[number]) => (JSON_COLUMNS.has(column) ? JSON.stringify(values[column]) : values[column]);

export interface ListFilter {
  status: StatusFilter;
  search?: string;
  agent_id?: string;
}

/** The jobs table, always within one entity (a job of another entity is simply not found). */
export class JobStore {
  constructor(private readonly sql: Sql) {}

  async create(entityId: string, values: JobValues, extra: { next_run_at: Date | null; created_by: string | null; source: JobSource; binding_id?: string | null; frozen: boolean }): Promise<JobRow> {
    const bind: unknown[] = [newId(), entityId, ...VALUE_COLUMNS.map((c) => bindValue(values, c)), extra.next_run_at, extra.created_by, extra.source, extra.binding_id ?? null, extra.frozen ? 'pending' : 'none'];
    const placeholders = bind.map((_, i) => `$${i + 1}`);
    const row = await this.sql.one<JobRow>(
      `INSERT INTO jobs (id, entity_id, ${VALUE_COLUMNS.join(', ')}, next_run_at, created_by, source, binding_id, frozen_skill_status)
       VALUES (${placeholders.join(', ')}) RETURNING *`,
      bind,
    );
    return row!;
  }

  async find(entityId: string, id: string, transaction?: Transaction, lock = false): Promise<JobRow | undefined> {
    return this.sql.one<JobRow>(`SELECT * FROM jobs WHERE entity_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [entityId, id], transaction);
  }

  /** Writes new values; `reschedule` also sets the next fire and clears a recorded miss. */
  async update(entityId: string, id: string, values: JobValues, opts: { next_run_at: Date | null; frozen: boolean; paused_reason?: string | null }, transaction?: Transaction): Promise<JobRow> {
    const sets = VALUE_COLUMNS.map((c, i) => `${c} = $${i + 3}`);
    const bind: unknown[] = [entityId, id, ...VALUE_COLUMNS.map((c) => bindValue(values, c)), opts.next_run_at];
    const n = bind.length;
    const frozen = opts.frozen ? `, frozen_skill_status = 'pending', frozen_skill_error = NULL` : '';
    const resumed = values.enabled ? ', paused_reason = NULL, consecutive_failures = CASE WHEN enabled THEN consecutive_failures ELSE 0 END' : '';
    const row = await this.sql.one<JobRow>(
      `UPDATE jobs SET ${sets.join(', ')}, next_run_at = $${n}, missed_at = NULL, version = version + 1, updated_at = now()${frozen}${resumed}
       WHERE entity_id = $1 AND id = $2 RETURNING *`,
      bind,
      transaction,
    );
    return row!;
  }

  async setEnabled(entityId: string, id: string, enabled: boolean, nextRunAt: Date | null, reason: string | null, transaction?: Transaction): Promise<JobRow> {
    const row = await this.sql.one<JobRow>(
      `UPDATE jobs SET enabled = $3, next_run_at = $4, paused_reason = $5, missed_at = NULL,
         consecutive_failures = CASE WHEN $3 THEN 0 ELSE consecutive_failures END, version = version + 1, updated_at = now()
       WHERE entity_id = $1 AND id = $2 RETURNING *`,
      [entityId, id, enabled, nextRunAt, reason],
      transaction,
    );
    return row!;
  }

  async remove(entityId: string, id: string, transaction?: Transaction): Promise<number> {
    return this.sql.exec('DELETE FROM jobs WHERE entity_id = $1 AND id = $2', [entityId, id], transaction);
  }

  async list(entityId: string, filter: ListFilter, limit: number, offset: number): Promise<{ items: JobRow[]; total: number; counts: Record<StatusFilter, number> }> {
    const where = ['entity_id = $1'];
    const bind: unknown[] = [entityId];
    if (filter.search) {
      bind.push(`%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(name ILIKE $${bind.length} OR coalesce(description, '') ILIKE $${bind.length} OR coalesce(payload_message, '') ILIKE $${bind.length})`);
    }
    if (filter.agent_id) {
      bind.push(filter.agent_id);
      where.push(`agent_id = $${bind.length}`);
    }
    const base = where.join(' AND ');
    const [items, counts] = await Promise.all([
      this.sql.rows<JobRow>(`SELECT * FROM jobs WHERE ${base} AND ${STATUS_SQL[filter.status]} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, bind),
      this.sql.one<Record<StatusFilter, string>>(
        `SELECT count(*) AS all, count(*) FILTER (WHERE enabled) AS enabled, count(*) FILTER (WHERE NOT enabled) AS paused, count(*) FILTER (WHERE ${ATTENTION}) AS attention FROM jobs WHERE ${base}`,
        bind,
      ),
    ]);
    const c = { all: Number(counts?.all ?? 0), enabled: Number(counts?.enabled ?? 0), paused: Number(counts?.paused ?? 0), attention: Number(counts?.attention ?? 0) };
    return { items, total: c[filter.status], counts: c };
  }

  /** The earliest next fire of any enabled job (any entity): the scheduler's next timer. */
  async nextDue(): Promise<Date | null> {
    const row = await this.sql.one<{ at: Date | null }>('SELECT min(next_run_at) AS at FROM jobs WHERE enabled AND next_run_at IS NOT NULL');
    return row?.at ? new Date(row.at) : null;
  }

  /** Any entity's job (internal: workers and the scheduler). */
  async byId(id: string): Promise<JobRow | undefined> {
    return this.sql.one<JobRow>('SELECT * FROM jobs WHERE id = $1', [id]);
  }

  async setFrozenSkill(id: string, version: number, result: { text: string } | { error: string }): Promise<boolean> {
    const n = await this.sql.exec(
      `UPDATE jobs SET frozen_skill = $3, frozen_skill_status = $4, frozen_skill_error = $5, frozen_for_version = $2 WHERE id = $1 AND version = $2`,
      'text' in result ? [id, version, result.text, 'ready', null] : [id, version, null, 'failed', result.error.slice(0, 2000)],
    );
    return n > 0;
  }
}
