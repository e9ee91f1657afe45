import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type ResponseOf } from '../../api/client';
import { ApiError } from '../../api/problem';
import { keys, useTaskConstants } from '../../hooks/queries';
import { Markdown } from '../../ui/Markdown';
import { Empty, ProblemNote, QueryView } from '../../ui/states';
import { allowedTargets, label, type Status } from '../board/moves';
import { SlaBadge } from './TasksPage';
import { deadlineToApi, deadlineToInput } from './dates';
import { TaskComments } from './TaskComments';

type Task = ResponseOf<'/api/v1/tasks/{id}', 'get'>;

export default function TaskDetailPage(): ReactNode {
  const { taskId = '' } = useParams();
  const task = useQuery({ queryKey: keys.task(taskId), queryFn: () => unwrap(api.GET('/api/v1/tasks/{id}', { params: { path: { id: taskId } } })) });
  return <QueryView query={task} what="task">{(t) => <TaskDetail task={t} />}</QueryView>;
}

function TaskDetail({ task }: { task: Task }): ReactNode {
  const [editing, setEditing] = useState(false);
  const constants = useTaskConstants();
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.tasks });
  const move = useMutation({
    mutationFn: (status: Status) => unwrap(api.POST('/api/v1/tasks/{id}/move', { params: { path: { id: task.id } }, body: { status, version: task.version } })),
    onSettled: refresh,
  });
  const history = useQuery({ queryKey: [...keys.task(task.id), 'history'], queryFn: () => unwrap(api.GET('/api/v1/tasks/{id}/history', { params: { path: { id: task.id } } })) });
  const targets = constants.data ? allowedTargets(constants.data, task.status) : [];
  return (
    <article>
      <div className="page-head">
        <h1>{task.title}</h1>
        <SlaBadge sla={task.sla} />
      </div>
      <p>
        <strong>{label(task.status)}</strong> · priority {task.priority}
        {task.deadline && <> · due {new Date(task.deadline).toLocaleString()}</>} · version {task.version}
      </p>
      <div className="actions">
        <button type="button" onClick={() => setEditing(true)}>Edit</button>
        {targets.map((s) => <button key={s} type="button" onClick={() => move.mutate(s)}>Move to {label(s)}</button>)}
      </div>
      <ProblemNote error={move.error} />
      {editing ? <TaskEdit task={task} onDone={() => setEditing(false)} /> : <Markdown>{task.description || '_No description._'}</Markdown>}
      <h2>Subtasks</h2>
      {task.subtasks.length > 0 ? (
        <>
          <ul className="list">{task.subtasks.map((s) => <li key={s.id}><Link to={`/tasks/${s.id}`}>{s.title}</Link> ({label(s.status)})</li>)}</ul>
          <Link to={`/tasks?parent_id=${encodeURIComponent(task.id)}`}>List the subtasks with filters and sorting</Link>
        </>
      ) : (
        <Empty>No subtasks.</Empty>
      )}
      <TaskComments taskId={task.id} />
      <h2>History</h2>
      <QueryView query={history} what="history">
        {(h) => (
          <ol className="list">
            {h.items.map((e) => (
              <li key={e.id}>
                <time dateTime={e.created_at}>{new Date(e.created_at).toLocaleString()}</time> {e.action} by {e.actor.type}
                {e.changes.length > 0 && <> — {e.changes.map((c) => `${c.field}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`).join('; ')}</>}
              </li>
            ))}
          </ol>
        )}
      </QueryView>
    </article>
  );
}

/** Edits carry the version they started from: a concurrent edit answers 409, which is said, never overwritten. */
function TaskEdit({ task, onDone }: { task: Task; onDone(): void }): ReactNode {
  const constants = useTaskConstants();
  const queryClient = useQueryClient();
  const [f, setF] = useState({ title: task.title, description: task.description, priority: String(task.priority), deadline: deadlineToInput(task.deadline) });
  const save = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/v1/tasks/{id}', { params: { path: { id: task.id } }, body: { title: f.title, description: f.description, priority: Number(f.priority), deadline: deadlineToApi(f.deadline), version: task.version } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.tasks });
      onDone();
    },
  });
  const conflict = save.error instanceof ApiError && save.error.status === 409;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="form" onSubmit={submit} aria-label="Edit task">
      <label>Title<input value={f.title} onChange={(e) => setF({ ...f, title: e.target.value })} /></label>
      <label>Description (Markdown)<textarea rows={8} value={f.description} onChange={(e) => setF({ ...f, description: e.target.value })} /></label>
      <label>Priority
        <select value={f.priority} onChange={(e) => setF({ ...f, priority: e.target.value })}>
          {constants.data?.priorities.map((p) => <option key={p.value} value={p.value}>{p.value} {p.label}</option>)}
        </select>
      </label>
      <label>Deadline<input type="datetime-local" value={f.deadline} onChange={(e) => setF({ ...f, deadline: e.target.value })} /></label>
      {conflict ? (
        <div className="problem-note" role="alert">
          <strong>Someone else changed this task meanwhile.</strong> Your edits are kept here; nothing was overwritten.{' '}
          <button type="button" onClick={() => void queryClient.invalidateQueries({ queryKey: keys.task(task.id) })}>Load their version</button>
        </div>
      ) : (
        <ProblemNote error={save.error} />
      )}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>Save</button>
        <button type="button" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}
