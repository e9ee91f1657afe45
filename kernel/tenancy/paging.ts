import type { JSONSchema } from '../openapi/types.ts';
import { queryInteger } from '../query-integer.ts';

/** Page size bounds and the deepest offset: past it, a list that grows pages with `cursor` (kernel/tenancy/cursor.ts). */
export const PAGE_LIMIT_MAX = 200;
export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_OFFSET_MAX = 1_000_000;

/** The list conventions: `?limit=&offset=` (default 50, at most 200; offset at most 1,000,000), as fastest-validator params. */
export const PAGING_PARAMS = {
  limit: queryInteger({ min: 1, max: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT }),
  offset: queryInteger({ min: 0, max: PAGE_OFFSET_MAX, default: 0 }),
} as const;

/** JSON schema of a page of items, for an action's `response`. */
export function pageSchema(item: JSONSchema): JSONSchema {
  return {
    type: 'object',
    properties: { items: { type: 'array', items: item }, total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } },
    required: ['items', 'total', 'limit', 'offset'],
  };
}
