import { describe, expect, it } from 'vitest';
import { QueryClient, type InfiniteData } from '@tanstack/react-query';
import { allowedTargets, arrangeColumns, decideDrop, legalByColumn, type Column } from '../src/pages/board/moves';
import { applyOptimisticMove, type Board, type BoardTask, type TaskPage } from '../src/pages/board/optimistic';
import { CONSTANTS } from './fixtures';

const columns = CONSTANTS.board_columns as Column[];
const col = (key: string) => columns.find((c) => c.key === key)!;

describe('drops on the board', () => {
  it('marks the legal columns of a dragged task from the server state machine', () => {
    const legal = legalByColumn(CONSTANTS, columns, 'completed');
    expect(legal.get('todo')).toEqual(['pending']);
    expect(legal.get('in_progress')).toEqual([]);
  });

  it('refuses an illegal drop on the spot, naming the allowed targets', () => {
    const d = decideDrop(CONSTANTS, col('in_progress'), 'completed');
    expect(d.kind).toBe('illegal');
    if (d.kind !== 'illegal') return;
    expect(d.allowed).toEqual(allowedTargets(CONSTANTS, 'completed'));
    expect(d.message).toMatch(/cannot move to In Progress/);
    expect(d.message).toMatch(/pending/);
  });

  it('asks which status when a column has several legal ones', () => {
    const d = decideDrop(CONSTANTS, col('needs_attention'), 'in_progress');
    expect(d).toEqual({ kind: 'choose', statuses: ['waiting_on_customer', 'on_hold', 'blocked', 'failed'] });
  });

  it('moves straight away when exactly one status fits, and ignores a drop on its own column', () => {
    expect(decideDrop(CONSTANTS, col('in_progress'), 'pending')).toEqual({ kind: 'move', status: 'in_progress' });
    expect(decideDrop(CONSTANTS, col('todo'), 'pending')).toEqual({ kind: 'same' });
  });

  it('orders and hides columns by the board preferences', () => {
    const arranged = arrangeColumns(columns, { visible_columns: ['done', 'todo'], column_order: ['done', 'in_progress', 'todo', 'scheduled', 'needs_attention'] });
    expect(arranged.map((c) => c.key)).toEqual(['done', 'todo']);
  });
});

function task(id: string, status: BoardTask['status']): BoardTask {
  return { id, title: id, status, priority: 3, version: 1 } as BoardTask;
}
function pages(items: BoardTask[]): InfiniteData<TaskPage> {
  return { pages: [{ items, total: items.length, limit: 100, offset: 0, next_cursor: null }], pageParams: [0] };
}

describe('optimistic move', () => {
  it('shows the move at once and rolls back exactly on failure', () => {
    const client = new QueryClient();
    const keys = { from: ['col', 'todo'], to: ['col', 'in_progress'], board: ['board'] };
    const a = task('a', 'pending');
    const board = { total: 2, columns: [{ key: 'todo', title: 'To Do', statuses: ['pending'], count: 2, counts: { pending: 2 }, items: [] }, { key: 'in_progress', title: 'In Progress', statuses: ['in_progress'], count: 0, counts: {}, items: [] }] } as unknown as Board;
    client.setQueryData(keys.from, pages([a, task('b', 'pending')]));
    client.setQueryData(keys.to, pages([]));
    client.setQueryData(keys.board, board);
    const before = { from: client.getQueryData(keys.from), to: client.getQueryData(keys.to) };

    const rollback = applyOptimisticMove(client, keys, a, { fromColumn: 'todo', toColumn: 'in_progress', status: 'in_progress' });
    const to = client.getQueryData<InfiniteData<TaskPage>>(keys.to)!;
    expect(to.pages[0]!.items.map((t) => [t.id, t.status])).toEqual([['a', 'in_progress']]);
    expect(client.getQueryData<InfiniteData<TaskPage>>(keys.from)!.pages[0]!.items.map((t) => t.id)).toEqual(['b']);
    expect(client.getQueryData<Board>(keys.board)!.columns.map((c) => c.count)).toEqual([1, 1]);

    rollback();
    expect(client.getQueryData(keys.from)).toEqual(before.from);
    expect(client.getQueryData(keys.to)).toEqual(before.to);
    expect(client.getQueryData(keys.board)).toEqual(board);
  });
});
