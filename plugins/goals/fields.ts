import { PLAN_MAX_STEPS, PLAN_STATUSES, PLAN_STEP_STATUSES, PLAN_SUMMARY_MAX } from '../../kernel/agents-contract.ts';
import { GOAL_STATUSES, METRIC_DIRECTIONS, type GoalMetric } from './model.ts';
import { invalid, type FieldProblem } from './errors.ts';

/** fastest-validator rules shared by the goal and plan actions. */

/** A date (2030-01-31) or date-time (2030-01-31T17:00:00Z, offsets allowed). */
const DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}([Tt ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?([Zz]|[+-]\\d{2}:?\\d{2})?)?$';

export const MAX_METRICS = 20;
export const UUID_RULE = { type: 'uuid' } as const;
export const TITLE_RULE = { type: 'string', trim: true, singleLine: true, min: 1, max: 200 } as const;
export const OBJECTIVE_RULE = { type: 'string', trim: true, min: 1, max: 10_000 } as const;
export const GOAL_STATUS_RULE = { type: 'enum', values: [...GOAL_STATUSES] } as const;
export const DUE_AT_RULE = { type: 'string', pattern: DATE_TIME_PATTERN, messages: { stringPattern: "The '{field}' field must be an ISO 8601 date or date-time." } } as const;
export const METRICS_RULE = {
  type: 'array',
  max: MAX_METRICS,
  items: {
    type: 'object',
    strict: true,
    props: {
      name: { type: 'string', trim: true, singleLine: true, min: 1, max: 120 },
      target: { type: 'number', convert: false },
      unit: { type: 'string', trim: true, singleLine: true, max: 32, optional: true, nullable: true },
      current: { type: 'number', convert: false, optional: true, nullable: true },
      direction: { type: 'enum', values: [...METRIC_DIRECTIONS], optional: true },
    },
  },
} as const;
export const COMMENT_RULE = { type: 'string', trim: true, max: 2000, optional: true, nullable: true } as const;
export const PLAN_STATUS_RULE = { type: 'enum', values: [...PLAN_STATUSES] } as const;
export const STEP_STATUS_RULE = { type: 'enum', values: [...PLAN_STEP_STATUSES] } as const;
export const STEPS_RULE = {
  type: 'array',
  min: 1,
  max: PLAN_MAX_STEPS,
  items: {
    type: 'object',
    strict: true,
    props: {
      title: { type: 'string', trim: true, singleLine: true, min: 1, max: 500 },
      detail: { type: 'string', max: 10_000, optional: true, nullable: true },
      status: { ...STEP_STATUS_RULE, optional: true },
    },
  },
} as const;
export const SUMMARY_RULE = { type: 'string', trim: true, min: 1, max: PLAN_SUMMARY_MAX } as const;

export type MetricInput = Omit<GoalMetric, 'unit' | 'current' | 'direction'> & Partial<Pick<GoalMetric, 'unit' | 'current' | 'direction'>>;

/** Metrics with their defaults; 422 naming a metric whose name is taken by an earlier one. */
export function normalizeMetrics(metrics: MetricInput[]): GoalMetric[] {
  const seen = new Map<string, number>();
  const problems: FieldProblem[] = [];
  const out = metrics.map((m, index) => {
    const key = m.name.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) problems.push({ field: `metrics[${index}].name`, message: `The metric '${m.name}' is listed twice (metrics[${first}]).`, type: 'duplicateMetric' });
    else seen.set(key, index);
    return { name: m.name, target: m.target, unit: m.unit || null, current: m.current ?? null, direction: m.direction ?? 'increase' };
  });
  if (problems.length) throw invalid(problems);
  return out;
}

/** A real instant (2024-02-30 is refused), else a 422 naming the field. ISO-shaped per the rule, checked here. */
export function parseDueAt(field: string, text: string): Date {
  const date = new Date(text);
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  const probe = new Date(Date.UTC(y, m - 1, d));
  const realDay = probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d;
  if (Number.isNaN(date.getTime()) || !realDay) throw invalid([{ field, message: `The '${field}' field must be an ISO 8601 date or date-time; '${text}' is not a date.`, type: 'date' }]);
  return date;
}

/** The title a goal gets when none is given: the objective's first line, cut to 200 characters. */
export function titleFrom(objective: string): string {
  const line = objective.split('\n', 1)[0].trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
