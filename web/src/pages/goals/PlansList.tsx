import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Empty, QueryView } from '../../ui/states';
import { goalKeys, type Plan } from './goal-queries';
import { PlanCard } from './PlanCard';

export type PlanFilter = { goal_id?: string; task_id?: string; workspace_id?: string; status?: Plan['status'] };

/** Plans matching a filter, newest first; polled, so a plan an agent proposes shows without a reload. */
export function PlansList({ filter, empty }: { filter: PlanFilter; empty: ReactNode }): ReactNode {
  const query = { ...filter, limit: 100 };
  const plans = useQuery({ queryKey: [...goalKeys.plans, query], queryFn: () => unwrap(api.GET('/api/v1/plans', { params: { query } })), refetchInterval: 5_000 });
  return (
    <QueryView query={plans} what="plans">
      {(data) => (data.items.length === 0 ? <Empty>{empty}</Empty> : <ul className="cards">{data.items.map((p) => <PlanCard key={p.id} plan={p} />)}</ul>)}
    </QueryView>
  );
}
