import { ERRORS } from '../../kernel/errors/catalogue.ts';

/**
 * A workspace's runtime configuration: how its agents run. Stored as given (jsonb) and read
 * with the defaults below filled in, so a key added later has a value in old workspaces too.
 */
export interface OperatingModel {
  /** agent that picks up work nobody was assigned to; null: none (work waits for a person) */
  default_agent_id: string | null;
  /** model agents of this workspace use unless they name one; null: the platform default */
  default_model: string | null;
  /** IANA time zone in which working hours and schedules are read */
  timezone: string;
  /** when agents may start work on their own; null: at any time */
  working_hours: WorkingHours | null;
  /** suggest: agents only propose; supervised: agents act, governance approvals apply; autonomous: agents act, asking only where a rule says `ask` */
  autonomy_level: AutonomyLevel;
}

export interface WorkingHours {
  days: Weekday[];
  /** HH:MM, 24-hour; an end before the start spans midnight */
  start: string;
  end: string;
}

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const AUTONOMY_LEVELS = ['suggest', 'supervised', 'autonomous'] as const;
export type AutonomyLevel = (typeof AUTONOMY_LEVELS)[number];

export const OPERATING_MODEL_DEFAULTS: OperatingModel = {
  default_agent_id: null,
  default_model: null,
  timezone: 'UTC',
  working_hours: null,
  autonomy_level: 'supervised',
};

const CLOCK = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

/** fastest-validator params of `PUT .../operating-model` (every key optional: the ones given replace). */
export const OPERATING_MODEL_PARAMS = {
  default_agent_id: { type: 'string', min: 1, max: 64, nullable: true, optional: true },
  default_model: { type: 'string', min: 1, max: 120, nullable: true, optional: true },
  timezone: { type: 'string', min: 1, max: 64, optional: true },
  working_hours: {
    type: 'object',
    strict: true,
    nullable: true,
    optional: true,
    props: {
      days: { type: 'array', min: 1, max: 7, unique: true, items: { type: 'enum', values: [...WEEKDAYS] } },
      start: { type: 'string', pattern: CLOCK },
      end: { type: 'string', pattern: CLOCK },
    },
  },
  autonomy_level: { type: 'enum', values: [...AUTONOMY_LEVELS], optional: true },
} as const;

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });

export const OPERATING_MODEL_SCHEMA = {
  type: 'object',
  properties: {
    default_agent_id: nullable({ type: 'string' }),
    default_model: nullable({ type: 'string' }),
    timezone: { type: 'string', description: 'IANA time zone, default UTC' },
    working_hours: nullable({
      type: 'object',
      properties: { days: { type: 'array', items: { type: 'string', enum: [...WEEKDAYS] } }, start: { type: 'string', pattern: CLOCK }, end: { type: 'string', pattern: CLOCK } },
      required: ['days', 'start', 'end'],
    }),
    autonomy_level: { type: 'string', enum: [...AUTONOMY_LEVELS] },
  },
  required: ['default_agent_id', 'default_model', 'timezone', 'working_hours', 'autonomy_level'],
};

/** The stored value with the defaults filled in (unknown stored keys are dropped). */
export function readOperatingModel(stored: Record<string, unknown> | null | undefined): OperatingModel {
  const model = { ...OPERATING_MODEL_DEFAULTS } as Record<string, unknown>;
  for (const key of Object.keys(OPERATING_MODEL_DEFAULTS)) if (stored && key in stored) model[key] = stored[key];
  return model as unknown as OperatingModel;
}

/** The operating model after applying a request; 422 naming the field for what the params cannot check. */
export function applyOperatingModel(current: OperatingModel, requested: Partial<OperatingModel>): OperatingModel {
  const next = { ...current } as Record<string, unknown>;
  for (const [key, value] of Object.entries(requested)) if (value !== undefined) next[key] = value;
  const result = next as unknown as OperatingModel;
  const problems: { field: string; message: string; type: string }[] = [];
  if (!isTimeZone(result.timezone)) problems.push({ field: 'timezone', message: `'${result.timezone}' is not an IANA time zone (e.g. Europe/Paris, UTC).`, type: 'timezone' });
  if (result.working_hours && result.working_hours.start === result.working_hours.end) {
    problems.push({ field: 'working_hours.end', message: 'The working hours must not start and end at the same time.', type: 'workingHours' });
  }
  if (problems.length) throw ERRORS.VALIDATION_FAILED('The operating model is not valid.', problems);
  return result;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
