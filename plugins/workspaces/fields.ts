import { isDeepStrictEqual } from 'node:util';

/** fastest-validator rules of the workspace's own fields, shared by create and update. */
export const NAME_RULE = { type: 'string', trim: true, singleLine: true, min: 1, max: 120 } as const;
export const DESCRIPTION_RULE = { type: 'string', max: 2000 } as const;
export const CATEGORY_RULE = { type: 'string', trim: true, singleLine: true, max: 64 } as const;
export const STATUS_RULE = { type: 'enum', values: ['active', 'paused'] } as const;
export const PROVIDER_ACCESS_RULE = { type: 'enum', values: ['none', 'granted'] } as const;

export type FieldChanges = Record<string, { from: unknown; to: unknown }>;

/** The fields whose value differs, as `{ field: { from, to } }` (what activity entries record). */
export function changesOf(current: Record<string, unknown>, requested: Record<string, unknown>): FieldChanges {
  const changes: FieldChanges = {};
  for (const [field, to] of Object.entries(requested)) {
    if (to === undefined) continue;
    const from = current[field];
    if (!isDeepStrictEqual(from, to)) changes[field] = { from, to };
  }
  return changes;
}
