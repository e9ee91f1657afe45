import type { Sequelize, Transaction } from 'sequelize';
import { commitTaskChange, getTask, type Actor, type ExecutionEntryInput, type FieldChange, type TaskColumns } from '../db/task-store.ts';
import type { TaskRow } from '../db/task-row.ts';
import { conflictAfterLostRace } from './move.ts';

export interface Decision {
  action: string;
  set: TaskColumns;
  changes: FieldChange[];
  execution?: ExecutionEntryInput[];
}

/**
 * Read, decide, write: `decide` sees the task as read and either throws (a 409 naming why)
 * or says what to change; the write is guarded by the version read, so a concurrent change
 * makes this one a conflict instead of overwriting it.
 */
export async function changeTask(
  db: Sequelize,
  req: { entityId: string; taskId: string; actor: Actor; now?: Date; transaction?: Transaction; decide: (row: TaskRow) => Decision },
): Promise<{ before: TaskRow; row: TaskRow; decision: Decision }> {
  const now = req.now ?? new Date();
  const before = await getTask(db, req.entityId, req.taskId, { transaction: req.transaction });
  const decision = req.decide(before);
  const row = await commitTaskChange(db, {
    entityId: req.entityId,
    taskId: before.id,
    expectedVersion: Number(before.version),
    set: decision.set,
    action: decision.action,
    actor: req.actor,
    changes: decision.changes,
    execution: decision.execution,
    now,
    transaction: req.transaction,
  });
  if (!row) throw await conflictAfterLostRace(db, { entityId: req.entityId, taskId: before.id, transaction: req.transaction }, Number(before.version));
  return { before, row, decision };
}
