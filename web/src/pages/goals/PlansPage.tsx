import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import type { Plan } from './goal-queries';
import { PlansList } from './PlansList';

const STATUSES: Plan['status'][] = ['pending', 'approved', 'rejected', 'superseded', 'completed'];

/** Every plan of the current workspace (or all), filtered by status; pending ones decided here. */
export default function PlansPage(): ReactNode {
  const [params, setParams] = useSearchParams();
  const { workspaceId } = useCurrentWorkspace();
  const status = (params.get('status') || undefined) as Plan['status'] | undefined;
  return (
    <section>
      <h1>Plans</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status ?? ''} onChange={(e) => setParams(e.target.value ? { status: e.target.value } : {})}>
            <option value="">any</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
      </form>
      <PlansList filter={{ status, workspace_id: workspaceId }} empty={<>No plans match. Agents propose plans for <Link to="/goals">goals</Link> and tasks.</>} />
    </section>
  );
}
