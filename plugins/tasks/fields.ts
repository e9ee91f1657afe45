import { ASSIGNEE_TYPES, MAX_PRIORITY, MIN_PRIORITY } from './domain/constants.ts';
import { TASK_STATUSES } from './domain/state-machine.ts';
import { invalidField } from './errors.ts';
import { DATE_TIME_PATTERN, isDateText } from './domain/dates.ts';

export { DATE_TIME_PATTERN };

/** fastest-validator rules of task fields, shared by create, update, templates and import. */

export const UUID_RULE = { type: 'uuid' } as const;
export const TITLE_RULE = { type: 'string', trim: true, min: 1, max: 500 } as const;
export const DESCRIPTION_RULE = { type: 'string', max: 100_000 } as const;
export const PRIORITY_RULE = { type: 'number', integer: true, min: MIN_PRIORITY, max: MAX_PRIORITY } as const;
export const STATUS_RULE = { type: 'enum', values: [...TASK_STATUSES] } as const;
export const REQUESTER_RULE = { type: 'string', trim: true, max: 255 } as const;
export const DATE_RULE = { type: 'string', pattern: DATE_TIME_PATTERN, messages: { stringPattern: "The '{field}' field must be an ISO 8601 date or date-time." } } as const;
export const ASSIGNEE_RULE = {
  type: 'object',
  strict: true,
  props: { type: { type: 'enum', values: [...ASSIGNEE_TYPES] }, id: { type: 'string', trim: true, min: 1, max: 128 } },
} as const;

/** The writable fields of a task, all optional (create makes title required). */
export const TASK_FIELD_PARAMS = {
  title: { ...TITLE_RULE, optional: true },
  description: { ...DESCRIPTION_RULE, optional: true },
  status: { ...STATUS_RULE, optional: true },
  priority: { ...PRIORITY_RULE, optional: true },
  assignee: { ...ASSIGNEE_RULE, optional: true, nullable: true },
  deadline: { ...DATE_RULE, optional: true, nullable: true },
  category_id: { ...UUID_RULE, optional: true, nullable: true },
  workspace_id: { ...UUID_RULE, optional: true, nullable: true },
  parent_id: { ...UUID_RULE, optional: true, nullable: true },
  sla_policy_id: { ...UUID_RULE, optional: true, nullable: true },
  requester: { ...REQUESTER_RULE, optional: true, nullable: true },
} as const;

export interface TaskFieldInput {
  title?: string;
  description?: string;
  status?: string;
  priority?: number;
  assignee?: { type: 'user' | 'agent'; id: string } | null;
  deadline?: string | null;
  category_id?: string | null;
  workspace_id?: string | null;
  parent_id?: string | null;
  sla_policy_id?: string | null;
  requester?: string | null;
}

/** A real calendar date (2024-02-30 is refused), else a 422 naming the field. ISO-shaped per the rule, checked here. */
export function parseDate(field: string, text: string): Date {
  if (!isDateText(text)) throw invalidField(field, `The '${field}' field must be an ISO 8601 date or date-time; '${text}' is not a date.`, 'date');
  return new Date(text);
}

const ID_FIELDS = ['category_id', 'workspace_id', 'parent_id', 'sla_policy_id'] as const;

/** UUIDs compare as stored (lower case), whatever case the client sent. */
export function normalizeIds<T extends Partial<Record<(typeof ID_FIELDS)[number], string | null | undefined>>>(input: T): T {
  const out = { ...input };
  for (const field of ID_FIELDS) {
    const value = out[field];
    if (typeof value === 'string') (out as Record<string, unknown>)[field] = value.toLowerCase();
  }
  return out;
}
