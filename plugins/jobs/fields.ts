import { SCHEDULE_KINDS } from '../../kernel/schedule/schedule.ts';
import { OVERLAP_POLICIES } from './store/types.ts';
import { STATUS_FILTERS } from './store/jobs.ts';

/** fastest-validator rules of the job routes (shapes only; meaning is checked in input.ts). */

export const MAX_DELIVERABLES = 20;
export const JOB_ID_PARAM = { job_id: { type: 'string', min: 1, max: 64 } } as const;
const ID = { type: 'uuid' } as const;

export const SCHEDULE_RULE = {
  type: 'object',
  strict: true,
  props: {
    kind: { type: 'enum', values: [...SCHEDULE_KINDS] },
    cron: { type: 'string', max: 200, optional: true, nullable: true },
    timezone: { type: 'string', min: 1, max: 64, optional: true, nullable: true },
    every_seconds: { type: 'number', integer: true, convert: false, optional: true, nullable: true },
    at: { type: 'string', max: 64, optional: true, nullable: true },
  },
} as const;

export const JOB_FIELDS = {
  name: { type: 'string', trim: true, singleLine: true, min: 1, max: 200 },
  description: { type: 'string', max: 5000, optional: true, nullable: true },
  schedule: SCHEDULE_RULE,
  executor: { type: 'string', min: 1, max: 64, optional: true },
  payload_message: { type: 'string', max: 20_000, optional: true, nullable: true },
  config: { type: 'object', optional: true },
  workspace_id: { ...ID, optional: true, nullable: true },
  conversation_id: { ...ID, optional: true, nullable: true },
  agent_id: { ...ID, optional: true, nullable: true },
  goal_id: { ...ID, optional: true, nullable: true },
  deliverables: { type: 'array', max: MAX_DELIVERABLES, items: { type: 'string', min: 1, max: 512 }, optional: true },
  delete_after_run: { type: 'boolean', optional: true },
  overlap: { type: 'enum', values: [...OVERLAP_POLICIES], optional: true },
  enabled: { type: 'boolean', optional: true },
} as const;

/** Every field optional (PUT changes the fields given). */
export const JOB_UPDATE_FIELDS = Object.fromEntries(Object.entries(JOB_FIELDS).map(([k, rule]) => [k, { ...rule, optional: true }])) as Record<keyof typeof JOB_FIELDS, object>;

export const LIST_FIELDS = {
  status: { type: 'enum', values: [...STATUS_FILTERS], default: 'all' },
  search: { type: 'string', trim: true, max: 200, optional: true },
  agent_id: { ...ID, optional: true },
} as const;

export const NEXT_PARAM = { next: { type: 'number', integer: true, min: 1, max: 50, convert: true, optional: true } } as const;
