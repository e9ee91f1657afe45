import type { ResponseOf } from '../../api/client';

export type Goal = ResponseOf<'/api/v1/goals/{goal_id}', 'get'>;
export type Plan = ResponseOf<'/api/v1/plans/{plan_id}', 'get'>;

export const goalKeys = {
  goals: ['goals'] as const,
  goal: (id: string) => ['goals', 'one', id] as const,
  plans: ['plans'] as const,
  executions: ['executions'] as const,
};

/** Whether a metric has met its target, in the direction it counts. */
export function metricMet(m: Goal['metrics'][number]): boolean | undefined {
  if (m.current === null) return undefined;
  return m.direction === 'decrease' ? m.current <= m.target : m.current >= m.target;
}
