import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { QueryView } from '../../ui/states';
import { goalKeys, metricMet, type Goal } from './goal-queries';
import { PlansList } from './PlansList';

/** One goal: its objective, metrics against their targets, and the plans agents made for it. */
export default function GoalPage(): ReactNode {
  const { goalId = '' } = useParams();
  const goal = useQuery({ queryKey: goalKeys.goal(goalId), queryFn: () => unwrap(api.GET('/api/v1/goals/{goal_id}', { params: { path: { goal_id: goalId } } })) });
  return <QueryView query={goal} what="goal">{(g) => <GoalDetail goal={g} />}</QueryView>;
}

function GoalDetail({ goal: g }: { goal: Goal }): ReactNode {
  return (
    <section>
      <div className="page-head">
        <h1>{g.title} <span className={`badge status-${g.status}`}>{g.status}</span></h1>
      </div>
      <dl className="kv">
        <dt>Objective</dt><dd><pre className="prewrap">{g.objective}</pre></dd>
        <dt>Workspace</dt><dd><Link to={`/workspaces/${g.workspace_id}`}>open</Link></dd>
        <dt>Agent</dt><dd>{g.agent_id ? <Link to={`/agents/${g.agent_id}`}>owning agent</Link> : 'none'}</dd>
        <dt>Due</dt><dd>{g.due_at ? new Date(g.due_at).toLocaleString() : '—'}</dd>
      </dl>
      <h2>Metrics</h2>
      {g.metrics.length === 0 ? (
        <p className="muted">No metrics.</p>
      ) : (
        <table>
          <thead><tr><th scope="col">Metric</th><th scope="col">Current</th><th scope="col">Target</th><th scope="col">Met</th></tr></thead>
          <tbody>
            {g.metrics.map((m) => {
              const met = metricMet(m);
              return (
                <tr key={m.name}>
                  <td>{m.name}</td>
                  <td>{m.current ?? 'not measured'}{m.unit ? ` ${m.unit}` : ''}</td>
                  <td>{m.direction === 'decrease' ? '≤' : '≥'} {m.target}{m.unit ? ` ${m.unit}` : ''}</td>
                  <td>{met === undefined ? '—' : met ? 'yes' : 'not yet'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <h2>Plans</h2>
      <PlansList filter={{ goal_id: g.id }} empty="No plan for this goal yet: an agent proposes one when it works on it." />
    </section>
  );
}
