import { PAGING_PARAMS, pageSchema } from '../../kernel/tenancy/paging.ts';

const ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:@-]*$';
const QUEUE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]*$';

export const LIST_PARAMS = { ...PAGING_PARAMS } as const;

/** The body of `POST /api/v1/workers/heartbeat`. */
export const HEARTBEAT_PARAMS = {
  worker_id: { type: 'string', min: 1, max: 128, pattern: ID_PATTERN },
  roles: { type: 'array', min: 1, max: 3, unique: true, items: { type: 'enum', values: ['api', 'control', 'work'] } },
  queues: { type: 'array', max: 32, unique: true, items: { type: 'string', min: 1, max: 64, pattern: QUEUE_PATTERN } },
  concurrency: {
    type: 'record',
    key: { type: 'string', min: 1, max: 64, pattern: QUEUE_PATTERN },
    value: { type: 'number', integer: true, min: 0, max: 100000 },
  },
  version: { type: 'string', min: 1, max: 64 },
  hostname: { type: 'string', min: 1, max: 255, optional: true },
  in_flight: { type: 'number', integer: true, min: 0, max: 1000000 },
} as const;

export const WORKER_SCHEMA = {
  type: 'object',
  properties: {
    worker_id: { type: 'string' },
    kind: { type: 'string', enum: ['node', 'external'] },
    roles: { type: 'array', items: { type: 'string' } },
    queues: { type: 'array', items: { type: 'string' } },
    concurrency: { type: 'object', additionalProperties: { type: 'integer' } },
    version: { type: ['string', 'null'] },
    hostname: { type: ['string', 'null'] },
    in_flight: { type: ['integer', 'null'] },
    last_heartbeat_at: { type: ['string', 'null'], format: 'date-time' },
    status: { type: 'string', enum: ['online', 'stale', 'offline'] },
    seen_in: { type: 'array', items: { type: 'string', enum: ['registry', 'heartbeats'] } },
  },
  required: ['worker_id', 'kind', 'roles', 'queues', 'concurrency', 'version', 'hostname', 'in_flight', 'last_heartbeat_at', 'status', 'seen_in'],
} as const;

const page = pageSchema(WORKER_SCHEMA) as { properties: Record<string, unknown>; required: string[] };

export const LIST_RESPONSE = {
  ...page,
  properties: { ...page.properties, stale_after_seconds: { type: 'integer' } },
  required: [...page.required, 'stale_after_seconds'],
};
