import { useEffect, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys } from '../../hooks/queries';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { Empty, QueryView } from '../../ui/states';
import { RunStatus } from '../runs/RunStatus';

/** A workspace's dashboard: each package's contribution (task counts per column, ...), recent runs, activity. */
export function WorkspaceDashboard(): ReactNode {
  const { workspaceId = '' } = useParams();
  const { setWorkspaceId } = useCurrentWorkspace();
  useEffect(() => setWorkspaceId(workspaceId), [workspaceId, setWorkspaceId]);
  const ws = useQuery({ queryKey: keys.workspace(workspaceId), queryFn: () => unwrap(api.GET('/api/v1/workspaces/{workspace_id}', { params: { path: { workspace_id: workspaceId } } })) });
  const runs = useQuery({ queryKey: [...keys.runs, { workspaceId, limit: 10 }], queryFn: () => unwrap(api.GET('/api/v1/workflows/runs', { params: { query: { workspace_id: workspaceId, limit: 10 } } })) });
  const activity = useQuery({ queryKey: ['activity', workspaceId], queryFn: () => unwrap(api.GET('/api/v1/workspaces/{workspace_id}/activity', { params: { path: { workspace_id: workspaceId }, query: { limit: 20 } } })) });
  return (
    <QueryView query={ws} what="workspace">
      {(w) => (
        <section>
          <div className="page-head">
            <h1>{w.name}</h1>
            <div className="actions">
              <Link to="/board">Board</Link> <Link to={`/tasks?workspace=${w.id}`}>Tasks</Link> <Link to={`/runs?workspace_id=${w.id}`}>Runs</Link>
            </div>
          </div>
          {w.description && <p>{w.description}</p>}
          <div className="grid">
            {Object.entries(w.dashboard).map(([service, contribution]) => (
              <Contribution key={service} service={service} value={contribution} workspaceId={w.id} />
            ))}
          </div>
          <h2>Recent runs</h2>
          <QueryView query={runs} what="runs">
            {(r) =>
              r.items.length === 0 ? (
                <Empty action={<Link to="/workflows">Start a workflow</Link>}>No runs in this workspace yet.</Empty>
              ) : (
                <ul className="list">
                  {r.items.map((run) => (
                    <li key={run.id}>
                      <Link to={`/runs/${run.id}`}>{run.id.slice(0, 8)}</Link> <RunStatus status={run.status} /> {run.trigger_type} · {new Date(run.created_at).toLocaleString()}
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryView>
          <h2>Activity</h2>
          <QueryView query={activity} what="activity">
            {(a) =>
              a.items.length === 0 ? (
                <Empty>Nothing has happened here yet.</Empty>
              ) : (
                <ul className="list">
                  {a.items.map((e) => (
                    <li key={e.id}>
                      <time dateTime={e.created_at}>{new Date(e.created_at).toLocaleString()}</time> {e.summary} <span className="muted">({e.kind})</span>
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryView>
        </section>
      )}
    </QueryView>
  );
}

/** A package's dashboard contribution, shown as it comes (its keys are the package's own). */
function Contribution({ service, value, workspaceId }: { service: string; value: Record<string, unknown>; workspaceId: string }): ReactNode {
  const link = service === 'tasks' ? `/tasks?workspace=${workspaceId}` : undefined;
  return (
    <div className="card">
      <h3>{link ? <Link to={link}>{service}</Link> : service}</h3>
      {'error' in value ? <p role="alert">Not available: {String(value.error)}</p> : <FlatValues value={value} />}
    </div>
  );
}

function FlatValues({ value }: { value: Record<string, unknown> }): ReactNode {
  return (
    <dl className="kv">
      {Object.entries(value).map(([k, v]) => (
        <div key={k}>
          <dt>{k.replaceAll('_', ' ')}</dt>
          <dd>{v !== null && typeof v === 'object' ? <FlatValues value={v as Record<string, unknown>} /> : String(v)}</dd>
        </div>
      ))}
    </dl>
  );
}
