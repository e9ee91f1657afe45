import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { MoveRules } from '../domain/move-rules.ts';
import type { TaskStatus } from '../domain/state-machine.ts';
import { BindList } from './sql-builder.ts';
import { auditSql, columnSets, type Actor, type ExecutionEntryInput, type FieldChange, type TaskColumns } from './task-store.ts';
import type { TaskRow } from './task-row.ts';

/**
 * A status move in ONE statement: lock the row, apply the move if its current status is one the
 * rules allow (and, when asked, it is at the expected version), stop or restart the SLA clocks,
 * and append the history entry (and execution entries). No row comes back when the move did not
 * apply; the caller then reads the task to say why.
 */
export interface MoveWrite {
  entityId: string;
  taskId: string;
  to: TaskStatus;
  rules: MoveRules;
  expectedVersion?: number;
  alsoSet?: TaskColumns;
  alsoChanged?: FieldChange[];
  execution?: ExecutionEntryInput[];
  action: string;
  actor: Actor;
  now: Date;
  transaction?: Transaction;
}

export type MovedRow = TaskRow & { previous_status: TaskStatus };

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The statement (exported for the benchmark's query plan). */
export function moveStatement(move: MoveWrite): { sql: string; bind: unknown[] } {
  const b = new BindList();
  const at = b.add(move.now);
  const nowIso = b.add(move.now.toISOString());
  const to = b.add(move.to);
  const responds = `cur.status = ANY(${b.add(move.rules.respondsFrom)}::varchar[]) AND cur.responded_at IS NULL`;
  const resolves = `cur.status = ANY(${b.add(move.rules.resolvesFrom)}::varchar[])`;
  const reopens = `cur.status = ANY(${b.add(move.rules.reopensFrom)}::varchar[])`;
  const sets = [
    `status = ${to}`,
    'version = t.version + 1',
    `updated_at = ${at}`,
    `responded_at = CASE WHEN ${responds} THEN ${at} ELSE t.responded_at END`,
    `resolved_at = CASE WHEN ${resolves} THEN ${at} WHEN ${reopens} THEN NULL ELSE t.resolved_at END`,
    ...columnSets(b, move.alsoSet ?? {}),
  ];
  const versionGuard = move.expectedVersion === undefined ? '' : ` AND cur.version = ${b.add(move.expectedVersion)}`;
  const changes = `jsonb_build_array(jsonb_build_object('field', 'status', 'from', cur.status, 'to', ${to}::text))
      || CASE WHEN ${responds} THEN jsonb_build_array(jsonb_build_object('field', 'responded_at', 'from', null, 'to', ${nowIso}::text)) ELSE '[]'::jsonb END
      || CASE WHEN ${resolves} THEN jsonb_build_array(jsonb_build_object('field', 'resolved_at', 'from', ${ISO('cur.resolved_at')}, 'to', ${nowIso}::text))
              WHEN ${reopens} THEN jsonb_build_array(jsonb_build_object('field', 'resolved_at', 'from', ${ISO('cur.resolved_at')}, 'to', null)) ELSE '[]'::jsonb END
      || ${b.add(JSON.stringify(move.alsoChanged ?? []))}::jsonb`;
  const sql = `WITH cur AS (
      SELECT id, status, version, responded_at, resolved_at FROM tasks WHERE id = ${b.add(move.taskId)} AND entity_id = ${b.add(move.entityId)} FOR UPDATE
    ), changed AS (
      UPDATE tasks t SET ${sets.join(', ')}
      FROM cur WHERE t.id = cur.id AND cur.status = ANY(${b.add(move.rules.legalFrom)}::varchar[])${versionGuard}
      RETURNING t.*, cur.status AS previous_status, ${changes} AS history_changes
    ),
    ${auditSql(b, { action: move.action, actor: move.actor, changesSql: 'changed.history_changes', execution: move.execution }, at)}
    SELECT * FROM changed`;
  return { sql, bind: b.values };
}

export async function commitMove(db: Sequelize, move: MoveWrite): Promise<MovedRow | null> {
  const { sql, bind } = moveStatement(move);
  const rows = await db.query<MovedRow & { history_changes?: unknown }>(sql, { bind, type: QueryTypes.SELECT, transaction: move.transaction });
  const row = rows[0];
  if (!row) return null;
  delete row.history_changes;
  return row;
}
