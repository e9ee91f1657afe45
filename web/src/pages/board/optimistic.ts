import type { InfiniteData, QueryClient, QueryKey } from '@tanstack/react-query';
import type { ResponseOf } from '../../api/client';
import type { Status } from './moves';

export type TaskPage = ResponseOf<'/api/v1/tasks', 'get'>;
export type BoardTask = TaskPage['items'][number];
export type Board = ResponseOf<'/api/v1/tasks/board', 'get'>;

/** The column's pages without the task. */
export function withoutTask(data: InfiniteData<TaskPage> | undefined, taskId: string): InfiniteData<TaskPage> | undefined {
  if (!data) return data;
  return { ...data, pages: data.pages.map((p) => ({ ...p, items: p.items.filter((t) => t.id !== taskId), total: p.items.some((t) => t.id === taskId) ? p.total - 1 : p.total })) };
}

/** The column's pages with the task first. */
export function withTask(data: InfiniteData<TaskPage> | undefined, task: BoardTask): InfiniteData<TaskPage> | undefined {
  if (!data || data.pages.length === 0) return data;
  const [first, ...rest] = data.pages;
  return { ...data, pages: [{ ...first!, items: [task, ...first!.items], total: first!.total + 1 }, ...rest] };
}

/** Board counts after a move of one task between columns. */
export function boardAfterMove(board: Board | undefined, from: { column: string; status: Status }, to: { column: string; status: Status }): Board | undefined {
  if (!board) return board;
  return {
    ...board,
    columns: board.columns.map((c) => {
      const counts = { ...(c.counts ?? {}) };
      let count = c.count;
      if (c.key === from.column) {
        count -= 1;
        counts[from.status] = (counts[from.status] ?? 1) - 1;
      }
      if (c.key === to.column) {
        count += 1;
        counts[to.status] = (counts[to.status] ?? 0) + 1;
      }
      return { ...c, count, counts };
    }),
  };
}

/**
 * Shows a move at once in the caches and returns how to undo it exactly (a 409 rolls back to
 * what was there before, not to a guess).
 */
export function applyOptimisticMove(
  client: QueryClient,
  keys: { from: QueryKey; to: QueryKey; board: QueryKey },
  task: BoardTask,
  move: { fromColumn: string; toColumn: string; status: Status },
): () => void {
  const before = {
    from: client.getQueryData<InfiniteData<TaskPage>>(keys.from),
    to: client.getQueryData<InfiniteData<TaskPage>>(keys.to),
    board: client.getQueryData<Board>(keys.board),
  };
  const moved: BoardTask = { ...task, status: move.status, board_column: move.toColumn };
  client.setQueryData(keys.from, withoutTask(before.from, task.id));
  client.setQueryData(keys.to, withTask(client.getQueryData<InfiniteData<TaskPage>>(keys.to), moved));
  client.setQueryData(keys.board, boardAfterMove(before.board, { column: move.fromColumn, status: task.status }, { column: move.toColumn, status: move.status }));
  return () => {
    client.setQueryData(keys.from, before.from);
    client.setQueryData(keys.to, before.to);
    client.setQueryData(keys.board, before.board);
  };
}
