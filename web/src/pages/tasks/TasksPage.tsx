import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys, useTaskConstants } from '../../hooks/queries';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { Empty, QueryView } from '../../ui/states';
import { label, type Status } from '../board/moves';
import { TaskCreate } from './TaskCreate';
import { TaskImport } from './TaskImport';
import { TaskCalendar } from './TaskCalendar';
import { Pager } from '../../ui/Pager';

const PAGE = 50;
const SORTS = ['-created_at', 'created_at', '-priority', 'priority', 'deadline', '-deadline', '-updated_at', 'title'];

/** Every filter the API has, kept in the URL so a filtered list can be shared and reloaded. */
export default function TasksPage(): ReactNode {
  const [params, setParams] = useSearchParams();
  const { workspaceId } = useCurrentWorkspace();
  const constants = useTaskConstants();
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const set = (key: string, value: string | string[] | undefined) => {
    const next = new URLSearchParams(params);
    next.delete(key);
    for (const v of [value ?? []].flat()) if (v) next.append(key, v);
    if (key !== 'offset') next.delete('offset');
    setParams(next);
  };
  const workspace = params.get('workspace') ?? workspaceId;
  const offset = Number(params.get('offset') ?? 0);
  const calendar = params.get('view') === 'calendar';
  const query = {
    status: params.getAll('status') as Status[],
    priority: params.getAll('priority').map(Number),
    q: params.get('q') || undefined,
    assignee: params.get('assignee') || undefined,
    assignee_type: (params.get('assignee_type') || undefined) as 'user' | 'agent' | undefined,
    deadline_from: params.get('deadline_from') || undefined,
    deadline_to: params.get('deadline_to') || undefined,
    sla_breached: params.get('sla_breached') === 'true' ? true : undefined,
    category: params.get('category') || undefined,
    parent_id: params.get('parent_id') || undefined,
    sort: params.get('sort') || '-created_at',
    workspace: workspace || undefined,
    limit: PAGE,
    offset,
  };
  const categories = useQuery({ queryKey: ['tasks', 'categories'], queryFn: () => unwrap(api.GET('/api/v1/tasks/categories', { params: { query: { limit: 200 } } })) });
  const tasks = useQuery({ queryKey: [...keys.tasks, 'list', query], queryFn: () => unwrap(api.GET('/api/v1/tasks', { params: { query } })), enabled: !calendar });
  return (
    <section>
      <div className="page-head">
        <h1>Tasks</h1>
        <div className="actions">
          <button type="button" onClick={() => setCreating(true)}>New task</button>
          <button type="button" onClick={() => setImporting(true)}>Import CSV</button>
        </div>
      </div>
      {creating && <TaskCreate workspaceId={workspace ?? undefined} onDone={() => setCreating(false)} />}
      {importing && <TaskImport onDone={() => setImporting(false)} />}
      <div role="group" aria-label="Tasks view" className="segmented tabs">
        <button type="button" aria-pressed={!calendar} onClick={() => set('view', undefined)}>List</button>
        <button type="button" aria-pressed={calendar} onClick={() => set('view', 'calendar')}>Calendar</button>
      </div>
      {calendar ? <TaskCalendar workspace={workspace ?? undefined} /> : (<>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>Search<input type="search" defaultValue={query.q} onBlur={(e) => set('q', e.target.value)} onKeyDown={(e) => e.key === 'Enter' && set('q', e.currentTarget.value)} /></label>
        <label>Status
          <select multiple value={query.status} onChange={(e) => set('status', [...e.target.selectedOptions].map((o) => o.value))}>
            {constants.data?.statuses.map((s) => <option key={s} value={s}>{label(s)}</option>)}
          </select>
        </label>
        <label>Priority
          <select multiple value={query.priority.map(String)} onChange={(e) => set('priority', [...e.target.selectedOptions].map((o) => o.value))}>
            {constants.data?.priorities.map((p) => <option key={p.value} value={p.value}>{p.value} {p.label}</option>)}
          </select>
        </label>
        <label>Assignee type
          <select value={query.assignee_type ?? ''} onChange={(e) => set('assignee_type', e.target.value)}>
            <option value="">any</option>
            {(constants.data?.assignee_types ?? []).map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <label>Assignee id<input defaultValue={query.assignee} onBlur={(e) => set('assignee', e.target.value)} /></label>
        <label>Category
          <select value={query.category ?? ''} onChange={(e) => set('category', e.target.value)}>
            <option value="">any</option>
            {categories.data?.items.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
          </select>
        </label>
        <label>Subtasks of (task id)<input key={query.parent_id ?? ''} defaultValue={query.parent_id} onBlur={(e) => set('parent_id', e.target.value.trim())} onKeyDown={(e) => e.key === 'Enter' && set('parent_id', e.currentTarget.value.trim())} /></label>
        <label>Due from<input type="date" value={query.deadline_from ?? ''} onChange={(e) => set('deadline_from', e.target.value)} /></label>
        <label>Due to<input type="date" value={query.deadline_to ?? ''} onChange={(e) => set('deadline_to', e.target.value)} /></label>
        <label className="inline"><input type="checkbox" checked={query.sla_breached === true} onChange={(e) => set('sla_breached', e.target.checked ? 'true' : undefined)} /> SLA breached</label>
        <label>Sort
          <select value={query.sort} onChange={(e) => set('sort', e.target.value)}>
            {SORTS.map((s) => <option key={s} value={s}>{s.startsWith('-') ? `${s.slice(1)} ↓` : `${s} ↑`}</option>)}
          </select>
        </label>
      </form>
      <QueryView query={tasks} what="tasks">
        {(data) =>
          data.items.length === 0 ? (
            <Empty action={<button type="button" onClick={() => setCreating(true)}>Create a task</button>}>No tasks match.</Empty>
          ) : (
            <>
              <table>
                <thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Priority</th><th scope="col">Deadline</th><th scope="col">SLA</th></tr></thead>
                <tbody>
                  {data.items.map((t) => (
                    <tr key={t.id}>
                      <td><Link to={`/tasks/${t.id}`}>{t.title}</Link></td>
                      <td>{label(t.status)}</td>
                      <td>{t.priority}</td>
                      <td>{t.deadline ? new Date(t.deadline).toLocaleString() : '—'}</td>
                      <td><SlaBadge sla={t.sla} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager offset={offset} pageSize={PAGE} shown={data.items.length} total={data.total} onOffset={(o) => set('offset', String(o))} />
            </>
          )
        }
      </QueryView>
      </>)}
    </section>
  );
}

export function SlaBadge({ sla }: { sla: unknown }): ReactNode {
  if (!sla || typeof sla !== 'object') return null;
  const s = sla as { breached?: boolean; due_at?: string };
  if (s.breached) return <span className="badge badge-danger">⚠ SLA breached</span>;
  return s.due_at ? <span className="badge">SLA due {new Date(s.due_at).toLocaleString()}</span> : null;
}
