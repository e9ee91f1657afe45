import { useMemo, useState, type ReactNode } from 'react';
import { DndContext, DragOverlay, KeyboardSensor, PointerSensor, pointerWithin, rectIntersection, useSensor, useSensors, type Announcements, type CollisionDetection, type DragEndEvent, type DragStartEvent } from '@dnd-kit/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ApiError } from '../../api/problem';
import { keys, useTaskConstants } from '../../hooks/queries';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { useAnnounce } from '../../ui/announcer';
import { Modal } from '../../ui/Modal';
import { ErrorState, Loading } from '../../ui/states';
import { arrangeColumns, columnOf, decideDrop, label, legalByColumn, type Column, type Constants, type Status } from './moves';
import { applyOptimisticMove, type BoardTask } from './optimistic';
import { BoardColumn } from './BoardColumn';
import { boardPrefsQuery, boardQuery, columnKey } from './board-queries';
import { CardBody } from './BoardCard';
import { columnKeyboardCoordinates } from './keyboard';

// the column under the pointer when there is one (a wide card overlaps two columns), else the most overlapped (keyboard)
const underPointer: CollisionDetection = (args) => {
  const hits = pointerWithin(args);
  return hits.length ? hits : rectIntersection(args);
};

interface Notice {
  kind: 'refused' | 'conflict' | 'moved';
  text: string;
}

export default function BoardPage(): ReactNode {
  const { workspaceId } = useCurrentWorkspace();
  const constants = useTaskConstants();
  const prefs = useQuery(boardPrefsQuery);
  const board = useQuery(boardQuery(workspaceId));
  if (constants.isError || prefs.isError || board.isError) {
    const error = constants.error ?? prefs.error ?? board.error;
    return <ErrorState error={error} onRetry={() => { void constants.refetch(); void prefs.refetch(); void board.refetch(); }} />;
  }
  if (!constants.data || !prefs.data || !board.data) return <Loading label="Loading the board" />;
  const columns = arrangeColumns(constants.data.board_columns as Column[], prefs.data);
  const counts = new Map(board.data.columns.map((c) => [c.key, c.count]));
  return <Board constants={constants.data} columns={columns} counts={counts} workspaceId={workspaceId} />;
}

function Board({ constants, columns, counts, workspaceId }: { constants: Constants; columns: Column[]; counts: Map<string, number>; workspaceId?: string }): ReactNode {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [active, setActive] = useState<BoardTask | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [choice, setChoice] = useState<{ task: BoardTask; column: Column; statuses: Status[] } | null>(null);
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 5 } }), useSensor(KeyboardSensor, { coordinateGetter: columnKeyboardCoordinates }));
  const legal = useMemo(() => (active ? legalByColumn(constants, columns, active.status) : undefined), [active, constants, columns]);
  const titleOf = (key: unknown) => columns.find((c) => c.key === key)?.title ?? String(key);

  const move = useMutation({
    mutationFn: (v: { task: BoardTask; status: Status }) => unwrap(api.POST('/api/v1/tasks/{id}/move', { params: { path: { id: v.task.id } }, body: { status: v.status, version: v.task.version } })),
    onMutate: (v) => {
      const from = columnOf(columns, v.task.status)?.key ?? v.task.board_column ?? '';
      const to = columnOf(columns, v.status)?.key ?? from;
      const rollback = applyOptimisticMove(queryClient, { from: columnKey(workspaceId, from), to: columnKey(workspaceId, to), board: keys.board(workspaceId) }, v.task, { fromColumn: from, toColumn: to, status: v.status });
      announce(`Moved "${v.task.title}" to ${label(v.status)}.`);
      return { rollback };
    },
    onError: (err, v, context) => {
      context?.rollback();
      const p = err instanceof ApiError ? err.problem : undefined;
      const current = typeof p?.current_status === 'string' ? ` It is ${label(p.current_status)} now.` : '';
      const allowed = Array.isArray(p?.allowed_targets) ? ` Allowed: ${(p.allowed_targets as string[]).map(label).join(', ') || 'nothing'}.` : '';
      const text = `"${v.task.title}" was not moved: ${p?.detail ?? (err as Error).message}${current}${allowed}`;
      setNotice({ kind: 'conflict', text });
      announce(text);
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['tasks'] }),
  });

  const request = (task: BoardTask, column: Column) => {
    const decision = decideDrop(constants, column, task.status);
    if (decision.kind === 'same') return;
    if (decision.kind === 'illegal') {
      setNotice({ kind: 'refused', text: decision.message });
      announce(decision.message);
      return;
    }
    if (decision.kind === 'choose') return setChoice({ task, column, statuses: decision.statuses });
    setNotice(null);
    move.mutate({ task, status: decision.status });
  };

  const onDragStart = (e: DragStartEvent) => setActive((e.active.data.current as { task: BoardTask }).task);
  const onDragEnd = (e: DragEndEvent) => {
    setActive(null);
    const task = (e.active.data.current as { task: BoardTask }).task;
    const column = columns.find((c) => c.key === e.over?.id);
    if (column) request(task, column);
  };
  const announcements: Announcements = {
    onDragStart: ({ active: a }) => `Picked up task "${(a.data.current as { task: BoardTask }).task.title}". Use the arrow keys to choose a column, space to drop, escape to cancel.`,
    onDragOver: ({ over }) => (over ? `Over ${titleOf(over.id)}${legal?.get(String(over.id))?.length ? '' : ': not allowed'}.` : 'Not over a column.'),
    onDragEnd: ({ over }) => (over ? `Dropped on ${titleOf(over.id)}.` : 'Dropped outside the board.'),
    onDragCancel: () => 'Move cancelled.',
  };

  return (
    <section className="board-page">
      <h1>Board</h1>
      {notice && (
        <p className={`notice notice-${notice.kind}`} role="alert">
          {notice.text} <button type="button" onClick={() => setNotice(null)}>Dismiss</button>
        </p>
      )}
      <DndContext sensors={sensors} collisionDetection={underPointer} onDragStart={onDragStart} onDragEnd={onDragEnd} onDragCancel={() => setActive(null)} accessibility={{ announcements }}>
        <div className="board">
          {columns.map((c) => (
            <BoardColumn key={c.key} column={c} count={counts.get(c.key) ?? 0} workspaceId={workspaceId} legal={legal?.get(c.key)} dragging={active !== null} constants={constants} onMoveTo={(task, status) => move.mutate({ task, status })} />
          ))}
        </div>
        <DragOverlay>{active ? <div className="card task-card dragging"><CardBody task={active} /></div> : null}</DragOverlay>
      </DndContext>
      {choice && (
        <Modal title={`Move "${choice.task.title}" to which status of ${choice.column.title}?`} onClose={() => setChoice(null)}>
          <div className="actions">
            {choice.statuses.map((s) => (
              <button key={s} type="button" data-autofocus={s === choice.statuses[0] ? true : undefined} onClick={() => { setChoice(null); move.mutate({ task: choice.task, status: s }); }}>
                {label(s)}
              </button>
            ))}
            <button type="button" onClick={() => setChoice(null)}>Cancel</button>
          </div>
        </Modal>
      )}
    </section>
  );
}
