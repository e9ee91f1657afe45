import { useEffect, useRef, type ReactNode } from 'react';
import { useDroppable } from '@dnd-kit/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ErrorState } from '../../ui/states';
import { label, type Column, type Constants, type Status } from './moves';
import type { BoardTask } from './optimistic';
import { BoardCard } from './BoardCard';
import { columnQuery } from './board-queries';

const CARD_HEIGHT = 96;

/** One board column: its tasks paged from the API and virtualized (only the visible cards are in the DOM). */
export function BoardColumn(props: { column: Column; count: number; workspaceId?: string; legal?: Status[]; dragging: boolean; constants: Constants; onMoveTo(task: BoardTask, status: Status): void }): ReactNode {
  const { column, workspaceId } = props;
  const { setNodeRef, isOver } = useDroppable({ id: column.key });
  const tasks = useInfiniteQuery(columnQuery(workspaceId, column));
  const items = tasks.data?.pages.flatMap((p) => p.items) ?? [];
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: () => CARD_HEIGHT, overscan: 6 });
  const visible = virtual.getVirtualItems();
  const last = visible[visible.length - 1];
  const nearEnd = last !== undefined && last.index >= items.length - 10;
  useEffect(() => {
    if (nearEnd && tasks.hasNextPage && !tasks.isFetchingNextPage) void tasks.fetchNextPage();
  }, [nearEnd, tasks]);

  const legal = props.dragging ? (props.legal?.length ?? 0) > 0 : undefined;
  const state = legal === undefined ? '' : legal ? ' drop-legal' : ' drop-illegal';
  return (
    <section ref={setNodeRef} className={`column${state}${isOver ? ' drop-over' : ''}`} aria-labelledby={`col-${column.key}`}>
      <h2 id={`col-${column.key}`}>
        {column.title} <span className="count" aria-label={`${props.count} tasks`}>{props.count}</span>
      </h2>
      {legal !== undefined && <p className="drop-hint">{legal ? `Drop here: ${props.legal!.map(label).join(' or ')}` : '⊘ Not allowed here'}</p>}
      {tasks.isError ? (
        <ErrorState error={tasks.error} onRetry={() => void tasks.refetch()} />
      ) : tasks.isPending ? (
        <p role="status">Loading…</p>
      ) : items.length === 0 ? (
        <p className="muted">No tasks here.</p>
      ) : (
        <div ref={scroller} className="column-scroll" data-testid={`column-${column.key}`}>
          <ul style={{ height: virtual.getTotalSize(), position: 'relative' }}>
            {visible.map((v) => {
              const task = items[v.index]!;
              return (
                <li key={task.id} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: CARD_HEIGHT, transform: `translateY(${v.start}px)` }}>
                  <BoardCard task={task} constants={props.constants} onMoveTo={props.onMoveTo} />
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </section>
  );
}
