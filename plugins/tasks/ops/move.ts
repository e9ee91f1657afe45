import type { Context } from 'moleculer';
import type { Sequelize, Transaction } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { checkMove, isTaskStatus, type TaskStatus } from '../domain/state-machine.ts';
import { moveRules } from '../domain/move-rules.ts';
import { commitMove } from '../db/move-store.ts';
import { clockChangesOnMove } from '../domain/sla.ts';
import { illegalMove, notFound, versionConflict } from '../errors.ts';
import { findTask, type Actor, type ExecutionEntryInput, type FieldChange, type TaskColumns } from '../db/task-store.ts';
import { iso, type TaskRow } from '../db/task-row.ts';
import { emitAfterCommit } from '../service.ts';

/**
 * THE way a task's status changes, whoever asks (a move, a comment, a retry, a public review, a
 * run; a PUT applies `moveColumns` in its own guarded write): the state machine decides
 * (`moveRules`), one statement locks the row, applies the move if legal from the status it has
 * (and at the version the caller saw, when given) and writes the history entry with it.
 */

export interface MoveRequest {
  entityId: string;
  taskId: string;
  to: string;
  actor: Actor;
  /** when given, the caller's view of the task: a mismatch is a conflict before anything else */
  expectedVersion?: number;
  /** what caused the move, the action of its history entry (move, update, comment, retry, public_review, run) */
  via: string;
  /** more columns to set in the same write (e.g. the pending request a decision clears) */
  alsoSet?: TaskColumns;
  alsoChanged?: FieldChange[];
  execution?: ExecutionEntryInput[];
  now?: Date;
  transaction?: Transaction;
  /** the move is legal only from this status (a retry: only from failed), whatever the table allows */
  onlyFrom?: TaskStatus;
}

export interface MoveResult {
  row: TaskRow;
  from: TaskStatus;
}

/** The status fields a move sets, and their history entries. */
export function moveColumns(row: TaskRow, to: TaskStatus, now: Date): { set: TaskColumns; changes: FieldChange[] } {
  const clocks = clockChangesOnMove(row.status, to, { responded_at: row.responded_at, resolved_at: row.resolved_at }, now);
  const set: TaskColumns = { status: to, ...clocks };
  const changes: FieldChange[] = [{ field: 'status', from: row.status, to }];
  for (const [field, value] of Object.entries(clocks)) changes.push({ field, from: iso(row[field as keyof typeof clocks]), to: iso(value) });
  return { set, changes };
}

export async function moveTask(db: Sequelize, req: MoveRequest): Promise<MoveResult> {
  const now = req.now ?? new Date();
  if (!isUuid(req.taskId)) throw notFound('task', req.taskId);
  if (isTaskStatus(req.to)) {
    const moved = await commitMove(db, {
      entityId: req.entityId,
      taskId: req.taskId,
      to: req.to,
      rules: moveRules(req.to, req.onlyFrom),
      expectedVersion: req.expectedVersion,
      alsoSet: req.alsoSet,
      alsoChanged: req.alsoChanged,
      execution: req.execution,
      action: req.via,
      actor: req.actor,
      now,
      transaction: req.transaction,
    });
    if (moved) return { row: moved, from: moved.previous_status };
  }
  throw await whyNotMoved(db, req);
}

/** The move did not apply: read the task and say why (gone, another version, or not a legal move from where it is). */
async function whyNotMoved(db: Sequelize, req: MoveRequest): Promise<Error> {
  const row = await findTask(db, req.entityId, req.taskId, { transaction: req.transaction });
  if (!row) return notFound('task', req.taskId);
  const current = { version: Number(row.version), status: row.status };
  if (req.expectedVersion !== undefined && req.expectedVersion !== current.version) return versionConflict(row.id, req.expectedVersion, current);
  if (req.onlyFrom && row.status !== req.onlyFrom) return illegalMove(row.id, row.status, req.to, ` by ${req.via} (only a '${req.onlyFrom}' task can)`);
  if (!checkMove(row.status, req.to).ok) return illegalMove(row.id, row.status, req.to);
  return versionConflict(row.id, undefined, current); // it was not legal a moment ago, and the task has moved since
}

/** The other writer won: say where the task is now (or that it is gone). */
export async function conflictAfterLostRace(db: Sequelize, req: { entityId: string; taskId: string; transaction?: Transaction }, readVersion: number): Promise<Error> {
  const current = await findTask(db, req.entityId, req.taskId, { transaction: req.transaction });
  if (!current) return notFound('task', req.taskId);
  return versionConflict(req.taskId, readVersion, { version: Number(current.version), status: current.status });
}

/** The event every status change emits, once committed. */
export function emitStatusChanged(ctx: Context, result: MoveResult, actor: Actor, via: string): void {
  emitAfterCommit(ctx, 'task.status.changed', {
    entity_id: result.row.entity_id,
    task_id: result.row.id,
    workspace_id: result.row.workspace_id,
    from: result.from,
    to: result.row.status,
    version: Number(result.row.version),
    actor,
    via,
  });
}
