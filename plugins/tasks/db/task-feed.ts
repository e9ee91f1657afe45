import { QueryTypes, type Sequelize } from 'sequelize';
import { defineKeyset, keysetPage, type Keyset, type PageStart, type RowsOf } from '../../../kernel/tenancy/cursor.ts';

/** The append-only lists of one task (history, comments): oldest first, by offset or cursor. */
export type TaskFeedTable = 'task_history' | 'task_logs';

export const TASK_FEED_KEYSETS: Record<TaskFeedTable, Keyset> = {
  task_history: feedKeyset('task_history'),
  task_logs: feedKeyset('task_logs'),
};

function feedKeyset(name: TaskFeedTable): Keyset {
  return defineKeyset(name, [
    { expr: 'created_at', type: 'timestamptz', descending: false },
    { expr: 'id', type: 'uuid', descending: false },
  ]);
}

/** A page of a task's feed (limit + 1 rows with their keys, for cursorPage) and the feed's total. */
export async function taskFeedPage<R extends object>(db: Sequelize, table: TaskFeedTable, columns: string, scope: { entityId: string; taskId: string }, page: PageStart): Promise<{ rows: R[]; total: number }> {
  const rowsOf: RowsOf = (text, bind) => db.query(text, { bind, type: QueryTypes.SELECT });
  return keysetPage<R>(rowsOf, { columns, from: table, where: 'task_id = $1 AND entity_id = $2', bind: [scope.taskId, scope.entityId], keyset: TASK_FEED_KEYSETS[table], page });
}
