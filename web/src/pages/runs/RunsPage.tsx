import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys } from '../../hooks/queries';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { Empty, QueryView } from '../../ui/states';
import { RunStatus } from './RunStatus';

const STATUSES = ['pending', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
const TRIGGERS = ['manual', 'webhook', 'schedule', 'event', 'workspace_event', 'retry'] as const;

/** Run history with the API's filters; polled every 2 s, so a new run shows without a reload. */
export default function RunsPage(): ReactNode {
  const [params, setParams] = useSearchParams();
  const { workspaceId } = useCurrentWorkspace();
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };
  const query = {
    status: (params.get('status') || undefined) as (typeof STATUSES)[number] | undefined,
    trigger_type: (params.get('trigger_type') || undefined) as (typeof TRIGGERS)[number] | undefined,
    workflow_id: params.get('workflow_id') || undefined,
    workspace_id: params.get('workspace_id') || workspaceId || undefined,
    limit: 100,
  };
  const runs = useQuery({ queryKey: [...keys.runs, query], queryFn: () => unwrap(api.GET('/api/v1/workflows/runs', { params: { query } })), refetchInterval: 2_000 });
  return (
    <section>
      <h1>Runs</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>Status
          <select value={query.status ?? ''} onChange={(e) => set('status', e.target.value)}>
            <option value="">any</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>Trigger
          <select value={query.trigger_type ?? ''} onChange={(e) => set('trigger_type', e.target.value)}>
            <option value="">any</option>
            {TRIGGERS.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </form>
      <QueryView query={runs} what="runs">
        {(data) =>
          data.items.length === 0 ? (
            <Empty action={<Link to="/workflows">Start a workflow</Link>}>No runs match.</Empty>
          ) : (
            <table>
              <thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Started</th><th scope="col">Finished</th></tr></thead>
              <tbody>
                {data.items.map((r) => (
                  <tr key={r.id}>
                    <td><Link to={`/runs/${r.id}`}>{r.id.slice(0, 8)}</Link></td>
                    <td><RunStatus status={r.status} /></td>
                    <td>{r.trigger_type}</td>
                    <td>{r.started_at ? new Date(r.started_at).toLocaleString() : '—'}</td>
                    <td>{r.finished_at ? new Date(r.finished_at).toLocaleString() : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </section>
  );
}
