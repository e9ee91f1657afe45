import { TASK_STATUSES, type TaskStatus } from './state-machine.ts';

/** The five board columns of the spec (grouping only: moves are decided by the state machine). */
export const BOARD_COLUMNS = [
  { key: 'todo', title: 'To Do', statuses: ['created', 'pending', 'proposed'] },
  { key: 'scheduled', title: 'Scheduled', statuses: ['scheduled'] },
  { key: 'in_progress', title: 'In Progress', statuses: ['in_progress'] },
  { key: 'needs_attention', title: 'Needs Attention', statuses: ['waiting_on_customer', 'on_hold', 'blocked', 'failed'] },
  { key: 'done', title: 'Done', statuses: ['completed', 'cancelled'] },
] as const satisfies readonly { key: string; title: string; statuses: readonly TaskStatus[] }[];

export type BoardColumnKey = (typeof BOARD_COLUMNS)[number]['key'];

export const BOARD_COLUMN_KEYS: readonly BoardColumnKey[] = BOARD_COLUMNS.map((c) => c.key);

/** The column a status is shown in; every status is in exactly one. */
export function columnOf(status: TaskStatus): BoardColumnKey {
  const column = BOARD_COLUMNS.find((c) => (c.statuses as readonly TaskStatus[]).includes(status));
  if (!column) throw new Error(`status ${status} is in no board column`);
  return column.key;
}

/** Sanity of the declaration, checked by the tests: each status in exactly one column. */
export function statusesWithoutExactlyOneColumn(): TaskStatus[] {
  return TASK_STATUSES.filter((s) => BOARD_COLUMNS.filter((c) => (c.statuses as readonly TaskStatus[]).includes(s)).length !== 1);
}
