import { ForeignKeyConstraintError, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { claimCte, claimLost, type InlineClaim } from '../../../kernel/idempotency/inline.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { statementName, type PooledSql } from '../../../kernel/db/pooled-sql.ts';
import { invalidField, notFound } from '../errors.ts';
import { BindList } from './sql-builder.ts';
import type { TaskRow } from './task-row.ts';
import { columnOf } from '../domain/board-columns.ts';

/**
 * Reads and writes of task rows. A write changes the row and appends its history entry (and
 * any execution record entries) in ONE statement, guarded by the version the caller read:
 * the change and its audit commit together, and a concurrent writer makes it match no row.
 */

export type ActorType = 'user' | 'agent' | 'system' | 'public';
export interface Actor {
  type: ActorType;
  id: string | null;
}

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface ExecutionEntryInput {
  kind: string;
  data: Record<string, unknown>;
}

/** Columns a write may set (the SQL is built from these names only). */
const WRITABLE = new Set([
  'workspace_id', 'parent_id', 'title', 'description', 'status', 'priority', 'assignee_type', 'assignee_id', 'deadline', 'category_id', 'requester',
  'output_files', 'sla_policy_id', 'sla_response_due_at', 'sla_resolution_due_at', 'responded_at', 'resolved_at', 'pending_request', 'delivery_review', 'evaluation',
]);
const JSON_COLUMNS = new Set(['output_files', 'pending_request', 'delivery_review', 'evaluation']);

/** The foreign keys of `tasks`, by the field a client names. */
const FOREIGN_KEYS: Record<string, string> = { tasks_parent_id_fkey: 'parent_id', tasks_category_id_fkey: 'category_id', tasks_sla_policy_id_fkey: 'sla_policy_id' };

/**
 * A reference checked a moment ago can vanish before the write (a category deleted meanwhile):
 * the database refuses it, and the client gets the 422 naming the field, not a 500.
 */
async function withReferences<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    // sequelize's error, or PostgreSQL's own through pooled SQL
    const constraint = err instanceof ForeignKeyConstraintError
      ? (err as { original?: { constraint?: string } }).original?.constraint
      : (err as { code?: string }).code === '23503' ? (err as { constraint?: string }).constraint : undefined;
    const field = FOREIGN_KEYS[constraint ?? ''];
    if (field) throw invalidField(field, `The ${field.replace(/_id$/, '').replace('_', ' ')} it refers to no longer exists.`, 'reference');
    throw err;
  }
}

export type TaskColumns = Partial<Omit<TaskRow, 'id' | 'entity_id' | 'board_column' | 'version' | 'created_by' | 'created_at' | 'updated_at'>>;

export async function findTask(db: Sequelize, entityId: string, id: string, opts: { transaction?: Transaction; lock?: boolean } = {}): Promise<TaskRow | null> {
  if (!isUuid(id)) return null;
  const rows = await db.query<TaskRow>(`SELECT * FROM tasks WHERE id = $1 AND entity_id = $2${opts.lock ? ' FOR UPDATE' : ''}`, {
    bind: [id, entityId],
    type: QueryTypes.SELECT,
    transaction: opts.transaction,
  });
  return rows[0] ?? null;
}

/** The caller's task, else 404 (also for another entity's task or an id that is no UUID). */
export async function getTask(db: Sequelize, entityId: string, id: string, opts: { transaction?: Transaction; lock?: boolean } = {}): Promise<TaskRow> {
  const row = await findTask(db, entityId, id, opts);
  if (!row) throw notFound('task', id);
  return row;
}

function valueSql(binds: BindList, column: string, value: unknown): string {
  if (JSON_COLUMNS.has(column)) return `${binds.add(value === null || value === undefined ? null : JSON.stringify(value))}::jsonb`;
  return binds.add(value ?? null);
}

/** `column = $n` for each column to set (names from the WRITABLE list only). */
export function columnSets(binds: BindList, set: TaskColumns): string[] {
  const sets: string[] = [];
  for (const [column, value] of Object.entries(set)) {
    if (!WRITABLE.has(column)) throw new Error(`tasks: column '${column}' is not writable`);
    if (value === undefined) continue;
    sets.push(`${column} = ${valueSql(binds, column, value)}`);
  }
  return sets;
}

export interface AuditInput {
  action: string;
  actor: Actor;
  /** the changes as data, or as an SQL expression over `changed` */
  changes?: FieldChange[];
  changesSql?: string;
  execution?: ExecutionEntryInput[];
}

/** The history (and execution entries) statement parts that follow a `changed` CTE. */
export function auditSql(binds: BindList, audit: AuditInput, at: string): string {
  const changes = audit.changesSql ?? `${binds.add(JSON.stringify(audit.changes ?? []))}::jsonb`;
  const history = `logged AS (
    INSERT INTO task_history (id, entity_id, task_id, action, actor_type, actor_id, changes, created_at)
    SELECT ${binds.add(newId())}, changed.entity_id, changed.id, ${binds.add(audit.action)}, ${binds.add(audit.actor.type)}, ${binds.add(audit.actor.id)}, ${changes}, ${at} FROM changed
  )`;
  if (!audit.execution?.length) return history;
  const entries = audit.execution.map((e) => ({ id: newId(), kind: e.kind, data: e.data }));
  return `${history}, recorded AS (
    INSERT INTO task_execution_entries (id, entity_id, task_id, kind, data, created_at)
    SELECT x.id, c.entity_id, c.id, x.kind, x.data, ${at} FROM changed c CROSS JOIN jsonb_to_recordset(${binds.add(JSON.stringify(entries))}::jsonb) AS x(id uuid, kind text, data jsonb)
  )`;
}

export interface NewTask extends TaskColumns {
  id: string;
  title: string;
  status: TaskRow['status'];
  priority: number;
  created_by: string | null;
}

/**
 * The row insertTask will return for `task`: its columns, the table's defaults and the generated
 * board column (migrations/002-tasks.ts). Used to know a create's answer before its write; the
 * gateway checks the answer sent against it, so a drift costs a second write, never a wrong answer.
 */
export function insertedRow(entityId: string, task: NewTask, now: Date): TaskRow {
  return {
    workspace_id: null, parent_id: null, description: '', assignee_type: null, assignee_id: null, deadline: null, category_id: null, requester: null,
    sla_policy_id: null, sla_response_due_at: null, sla_resolution_due_at: null, responded_at: null, resolved_at: null,
    output_files: [], pending_request: null, delivery_review: null, evaluation: null,
    ...task,
    entity_id: entityId,
    board_column: columnOf(task.status),
    version: 1,
    created_at: now,
    updated_at: now,
  };
}

export interface InsertOptions {
  transaction?: Transaction;
  /** an Idempotency-Key to claim in the same statement */
  claim?: InlineClaim;
  /**
   * pooled SQL on the same database: outside a transaction the insert goes through it as a
   * statement prepared once per connection (a create's SQL varies only with the columns set)
   */
  sql?: PooledSql;
}

/**
 * Inserts a task with its "created" history entry; with an Idempotency-Key claim, the insert
 * happens only if the claim does (same statement), else claimLost() is thrown.
 */
export async function insertTask(db: Sequelize, entityId: string, task: NewTask, audit: { actor: Actor; execution?: ExecutionEntryInput[] }, now: Date, opts: InsertOptions = {}): Promise<TaskRow> {
  const { transaction, claim, sql: pooled } = opts;
  const binds = new BindList();
  const at = binds.add(now);
  const columns = ['id', 'entity_id', 'created_by', 'created_at', 'updated_at'];
  const values = [binds.add(task.id), binds.add(entityId), binds.add(task.created_by), at, at];
  for (const [column, value] of Object.entries(task)) {
    if (!WRITABLE.has(column) || value === undefined) continue;
    columns.push(column);
    values.push(valueSql(binds, column, value));
  }
  const changes = Object.entries(task)
    .filter(([column, value]) => WRITABLE.has(column) && value !== undefined && value !== null)
    .map(([field, to]) => ({ field, from: null, to: to instanceof Date ? to.toISOString() : to }));
  const claimed = claim ? claimCte((v) => binds.add(v), claim) : undefined;
  const insert = claimed
    ? `${claimed.cte}, changed AS (INSERT INTO tasks (${columns.join(', ')}) SELECT ${values.join(', ')} WHERE ${claimed.guard} RETURNING *)`
    : `changed AS (INSERT INTO tasks (${columns.join(', ')}) VALUES (${values.join(', ')}) RETURNING *)`;
  const sql = `WITH ${insert},
    ${auditSql(binds, { action: 'created', actor: audit.actor, changes, execution: audit.execution }, at)}
    SELECT * FROM changed`;
  const rows = await withReferences(() =>
    pooled && !transaction ? pooled.rows<TaskRow>(sql, binds.values, statementName('task_insert', sql)) : db.query<TaskRow>(sql, { bind: binds.values, type: QueryTypes.SELECT, transaction }),
  );
  if (!rows[0] && claim) throw claimLost();
  return rows[0];
}

export interface TaskChange {
  entityId: string;
  taskId: string;
  /** the version the change was decided on; the write matches no row if it moved on */
  expectedVersion: number;
  set: TaskColumns;
  action: string;
  actor: Actor;
  changes: FieldChange[];
  execution?: ExecutionEntryInput[];
  now: Date;
  transaction?: Transaction;
}

/** Applies a change with its audit; null when the task is at another version (or gone). */
export async function commitTaskChange(db: Sequelize, change: TaskChange): Promise<TaskRow | null> {
  const binds = new BindList();
  const at = binds.add(change.now);
  const sets = ['version = version + 1', `updated_at = ${at}`, ...columnSets(binds, change.set)];
  const sql = `WITH changed AS (
      UPDATE tasks SET ${sets.join(', ')}
      WHERE id = ${binds.add(change.taskId)} AND entity_id = ${binds.add(change.entityId)} AND version = ${binds.add(change.expectedVersion)}
      RETURNING *
    ),
    ${auditSql(binds, change, at)}
    SELECT * FROM changed`;
  const rows = await withReferences(() => db.query<TaskRow>(sql, { bind: binds.values, type: QueryTypes.SELECT, transaction: change.transaction }));
  return rows[0] ?? null;
}

/** Appends execution record entries without changing the task (its version stays). */
export async function appendExecution(db: Sequelize, entityId: string, taskId: string, entries: ExecutionEntryInput[], now: Date, transaction?: Transaction): Promise<void> {
  if (!entries.length) return;
  const binds = new BindList();
  const rows = entries.map((e) => ({ id: newId(), kind: e.kind, data: e.data }));
  await db.query(
    `INSERT INTO task_execution_entries (id, entity_id, task_id, kind, data, created_at)
     SELECT x.id, t.entity_id, t.id, x.kind, x.data, ${binds.add(now)} FROM tasks t CROSS JOIN jsonb_to_recordset(${binds.add(JSON.stringify(rows))}::jsonb) AS x(id uuid, kind text, data jsonb)
     WHERE t.id = ${binds.add(taskId)} AND t.entity_id = ${binds.add(entityId)}`,
    { bind: binds.values, transaction },
  );
}

/**
 * A history entry for something done to the task that leaves its own row as it is (a comment,
 * a file): the entry is written only if the task exists in the entity.
 */
export async function appendHistory(
  db: Sequelize,
  entityId: string,
  taskId: string,
  entry: { action: string; actor: Actor; changes: FieldChange[] },
  now: Date,
  transaction?: Transaction,
): Promise<void> {
  await db.query(
    `INSERT INTO task_history (id, entity_id, task_id, action, actor_type, actor_id, changes, created_at)
     SELECT $1, entity_id, id, $2, $3, $4, $5::jsonb, $6 FROM tasks WHERE id = $7 AND entity_id = $8`,
    { bind: [newId(), entry.action, entry.actor.type, entry.actor.id, JSON.stringify(entry.changes), now, taskId, entityId], transaction },
  );
}
