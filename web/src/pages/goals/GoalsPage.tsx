import { useState, type ReactNode } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { useAnnounce } from '../../ui/announcer';
import { Empty, QueryView } from '../../ui/states';
import { GoalForm, goalBody, type GoalFields } from './GoalForm';
import { goalKeys, type Goal } from './goal-queries';

const STATUSES: Goal['status'][] = ['active', 'achieved', 'abandoned'];

/** Goals of the current workspace (or all): objective, metrics, status; create one here. */
export default function GoalsPage(): ReactNode {
  const { workspaceId } = useCurrentWorkspace();
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const status = (params.get('status') || undefined) as Goal['status'] | undefined;
  const query = { limit: 100, ...(workspaceId ? { workspace_id: workspaceId } : {}), ...(status ? { status } : {}) };
  const goals = useQuery({ queryKey: [...goalKeys.goals, query], queryFn: () => unwrap(api.GET('/api/v1/goals', { params: { query } })) });
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const announce = useAnnounce();
  const create = useMutation({
    mutationFn: (f: GoalFields) => unwrap(api.POST('/api/v1/goals', { body: goalBody(f) })),
    onSuccess: (g) => {
      announce(`Goal ${g.title} created`);
      void queryClient.invalidateQueries({ queryKey: goalKeys.goals });
      navigate(`/goals/${g.id}`);
    },
  });
  return (
    <section>
      <div className="page-head">
        <h1>Goals</h1>
        <div className="actions">
          <button type="button" onClick={() => setCreating(true)}>New goal</button>
          <Link to="/plans">Plans</Link>
          <Link to="/executions">Agent executions</Link>
        </div>
      </div>
      {creating && <GoalForm workspaceId={workspaceId} busy={create.isPending} error={create.error} onSubmit={(f) => create.mutate(f)} onCancel={() => setCreating(false)} />}
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status ?? ''} onChange={(e) => setParams(e.target.value ? { status: e.target.value } : {})}>
            <option value="">any</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </form>
      <QueryView query={goals} what="goals">
        {(data) =>
          data.items.length === 0 ? (
            <Empty action={<button type="button" onClick={() => setCreating(true)}>Set the first goal</button>}>No goals match.</Empty>
          ) : (
            <table>
              <thead><tr><th scope="col">Goal</th><th scope="col">Status</th><th scope="col">Metrics</th><th scope="col">Due</th></tr></thead>
              <tbody>
                {data.items.map((g) => (
                  <tr key={g.id}>
                    <td><Link to={`/goals/${g.id}`}>{g.title}</Link></td>
                    <td><span className={`badge status-${g.status}`}>{g.status}</span></td>
                    <td>{g.metrics.length ? g.metrics.map((m) => `${m.name} ${m.current ?? '?'} / ${m.target}${m.unit ? ` ${m.unit}` : ''}`).join('; ') : '—'}</td>
                    <td>{g.due_at ? new Date(g.due_at).toLocaleDateString() : '—'}</td>
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
