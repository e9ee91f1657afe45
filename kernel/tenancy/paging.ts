import type { JSONSchema } from '../openapi/types.ts';

/** The list conventions: `?limit=&offset=` (default 50, at most 200), as fastest-validator params. */
export const PAGING_PARAMS = {
  limit: { type: 'number', integer: true, min: 1, max: 200, default: 50, convert: true },
  offset: { type: 'number', integer: true, min: 0, default: 0, convert: true },
} as const;

/** JSON schema of a page of items, for an action's `response`. */
export function pageSchema(item: JSONSchema): JSONSchema {
  return {
    type: 'object',
    properties: { items: { type: 'array', items: item }, total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } },
    required: ['items', 'total', 'limit', 'offset'],
  };
}
