import { USAGE_COUNTERS } from '../../kernel/usage-contract.ts';
import { queryInteger } from '../../kernel/query-integer.ts';

export const SUMMARY_PARAMS = {
  days: queryInteger({ min: 1, max: 365, default: 30 }),
} as const;

const counter = { type: 'integer', minimum: 0 };
const counters = Object.fromEntries(USAGE_COUNTERS.map((c) => [c, counter]));

const SOURCE_SCHEMA = {
  type: 'object',
  properties: {
    action: { type: 'string' },
    service: { type: 'string' },
    package: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['ok', 'failed', 'timeout', 'invalid'] },
    counts: { type: 'object', properties: counters, additionalProperties: false },
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
  },
  required: ['action', 'service', 'package', 'status', 'counts', 'error'],
};

export const SUMMARY_RESPONSE = {
  type: 'object',
  properties: {
    entity_id: { type: 'string' },
    days: { type: 'integer', minimum: 1, maximum: 365 },
    since: { type: 'string', format: 'date-time' },
    until: { type: 'string', format: 'date-time' },
    ...counters,
    complete: { type: 'boolean', description: 'false when a contributor failed, timed out or answered something unusable' },
    sources: { type: 'array', items: SOURCE_SCHEMA },
  },
  required: ['entity_id', 'days', 'since', 'until', ...USAGE_COUNTERS, 'complete', 'sources'],
};
