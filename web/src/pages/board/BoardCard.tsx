import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useDraggable } from '@dnd-kit/core';
import { allowedTargets, label, type Constants, type Status } from './moves';
import type { BoardTask } from './optimistic';

export function CardBody({ task }: { task: BoardTask }): ReactNode {
  return (
    <>
      <Link to={`/tasks/${task.id}`} className="task-title">{task.title}</Link>
      <span className="meta">
        P{task.priority} · {label(task.status)}
        {task.deadline && <> · due {new Date(task.deadline).toLocaleDateString()}</>}
      </span>
    </>
  );
}

/** A task on the board: a drag handle (mouse or keyboard) and a "Move to…" menu of the legal targets. */
export function BoardCard({ task, constants, onMoveTo }: { task: BoardTask; constants: Constants; onMoveTo(task: BoardTask, status: Status): void }): ReactNode {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, isDragging } = useDraggable({ id: task.id, data: { task } });
  const targets = allowedTargets(constants, task.status);
  return (
    <div ref={setNodeRef} className={`card task-card${isDragging ? ' is-dragging' : ''}`} data-task-id={task.id}>
      <button type="button" ref={setActivatorNodeRef} className="drag-handle" aria-label={`Drag "${task.title}"`} {...attributes} {...listeners}>
        <span aria-hidden="true">⠿</span>
      </button>
      <CardBody task={task} />
      <select
        className="move-to"
        aria-label={`Move "${task.title}" to…`}
        value=""
        onChange={(e) => e.target.value && onMoveTo(task, e.target.value as Status)}
        disabled={targets.length === 0}
      >
        <option value="">Move to…</option>
        {targets.map((s) => (
          <option key={s} value={s}>{label(s)}</option>
        ))}
      </select>
    </div>
  );
}
