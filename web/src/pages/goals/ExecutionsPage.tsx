import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { Empty, QueryView } from '../../ui/states';
import { RunStatus } from '../runs/RunStatus';
import { goalKeys } from './goal-queries';

const STATUSES = ['pending', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];

/** Agent runs (task runs and chat replies) with the API's filters: agent, task, status, workspace. */
export default function ExecutionsPage(): ReactNode {
  const [params, setParams] = useSearchParams();
  const { workspaceId } = useCurrentWorkspace();
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next);
  };
  const query = {
    limit: 100,
    ...(params.get('agent_id') ? { agent_id: params.get('agent_id')! } : {}),
    ...(params.get('task_id') ? { task_id: params.get('task_id')! } : {}),
    ...(params.get('status') ? { status: params.get('status') as Status } : {}),
    ...(workspaceId ? { workspace_id: workspaceId } : {}),
  };
  const executions = useQuery({ queryKey: [...goalKeys.executions, query], queryFn: () => unwrap(api.GET('/api/v1/executions', { params: { query } })), refetchInterval: 5_000 });
  return (
    <section>
      <h1>Agent executions</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={query.status ?? ''} onChange={(e) => set('status', e.target.value)}>
            <option value="">any</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        {query.agent_id && <button type="button" onClick={() => set('agent_id', '')}>Any agent</button>}
        {query.task_id && <button type="button" onClick={() => set('task_id', '')}>Any task</button>}
      </form>
      <QueryView query={executions} what="executions">
        {(data) =>
          data.items.length === 0 ? (
            <Empty action={<Link to="/chat">Ask an agent in the chat</Link>}>No agent runs match.</Empty>
          ) : (
            <table>
              <thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Why</th><th scope="col">Agent</th><th scope="col">Task</th><th scope="col">Rounds</th><th scope="col">Tool calls</th><th scope="col">Started</th></tr></thead>
              <tbody>
                {data.items.map((x) => (
                  <tr key={x.id}>
                    <td><Link to={`/runs/${x.id}`}>{x.id.slice(0, 8)}</Link></td>
                    <td><RunStatus status={x.status} /></td>
                    <td>{x.reason ?? '—'}</td>
                    <td>{x.agent_id ? <Link to={`/agents/${x.agent_id}`}>agent</Link> : 'assistant'}</td>
                    <td>{x.task_id ? <Link to={`/tasks/${x.task_id}`}>task</Link> : x.conversation_id ? <Link to={`/chat/${x.conversation_id}`}>chat</Link> : '—'}</td>
                    <td>{x.rounds}</td>
                    <td>{x.tool_calls}</td>
                    <td>{x.started_at ? new Date(x.started_at).toLocaleString() : '—'}</td>
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
