import { QueryTypes, type Sequelize } from 'sequelize';
import { ASSIGNEE_TYPES } from '../domain/constants.ts';
import { TASK_STATUSES, type TaskStatus } from '../domain/state-machine.ts';
import { invalidField } from '../errors.ts';
import { DATE_RULE, PRIORITY_RULE, parseDate } from '../fields.ts';
import { countQuery, countableFromCounters, countersQuery, parseSort, SORT_FIELDS, type SortKey, type TaskFilters } from '../db/list-query.ts';

/** The filters the list and the board share, as query parameters. */
export const FILTER_PARAMS = {
  status: { type: 'array', items: { type: 'enum', values: [...TASK_STATUSES] }, convert: true, optional: true, max: 11 },
  workspace: { type: 'uuid', optional: true },
  category: { type: 'uuid', optional: true },
  assignee: { type: 'string', min: 1, max: 128, optional: true, description: "an assignee id, or 'none' for tasks left to the master agent" },
  assignee_type: { type: 'enum', values: [...ASSIGNEE_TYPES], optional: true },
  priority: { type: 'array', items: { ...PRIORITY_RULE, convert: true }, convert: true, optional: true, max: 5 },
  q: { type: 'string', min: 1, max: 200, optional: true },
  deadline_from: { ...DATE_RULE, optional: true },
  deadline_to: { ...DATE_RULE, optional: true },
  sla_breached: { type: 'boolean', optional: true, convert: true },
  parent_id: { type: 'uuid', optional: true },
} as const;

export const SORT_PARAM = {
  sort: { type: 'string', max: 200, optional: true, description: `comma-separated fields, '-' for descending; fields: ${SORT_FIELDS.join(', ')}` },
} as const;

export interface FilterParams {
  status?: TaskStatus[];
  workspace?: string;
  category?: string;
  assignee?: string;
  assignee_type?: (typeof ASSIGNEE_TYPES)[number];
  priority?: number[];
  q?: string;
  deadline_from?: string;
  deadline_to?: string;
  sla_breached?: boolean;
  parent_id?: string;
  sort?: string;
}

export function filtersOf(params: FilterParams): TaskFilters {
  const filters: TaskFilters = {
    status: params.status?.length ? [...new Set(params.status)] : undefined,
    workspace_id: params.workspace?.toLowerCase(),
    category_id: params.category?.toLowerCase(),
    assignee: params.assignee,
    assignee_type: params.assignee_type,
    priority: params.priority?.length ? [...new Set(params.priority)] : undefined,
    q: params.q,
    deadline_from: params.deadline_from ? parseDate('deadline_from', params.deadline_from) : undefined,
    deadline_to: params.deadline_to ? parseDate('deadline_to', params.deadline_to) : undefined,
    sla_breached: params.sla_breached,
    parent_id: params.parent_id?.toLowerCase(),
  };
  if (filters.deadline_from && filters.deadline_to && filters.deadline_from > filters.deadline_to) {
    throw invalidField('deadline_to', "'deadline_to' is before 'deadline_from'.", 'range');
  }
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)) as TaskFilters;
}

export function sortOf(text: string | undefined, fallback: SortKey[]): SortKey[] {
  if (text === undefined) return fallback;
  const sort = parseSort(text);
  if (!sort) throw invalidField('sort', `'${text}' is not a sort: use comma-separated fields of ${SORT_FIELDS.join(', ')}, each once, '-' before a field for descending.`, 'sort');
  return sort;
}

/** Tasks per status matching the filters: from the counters when they can answer, else counted. */
export async function countByStatus(db: Sequelize, entityId: string, filters: TaskFilters, now: Date): Promise<Map<string, number>> {
  const query = countableFromCounters(filters) ? countersQuery(entityId, filters) : countQuery(entityId, filters, now);
  const rows = await db.query<{ status: string; n: number }>(query.sql, { bind: query.bind, type: QueryTypes.SELECT });
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}
