import { sameValue } from '../../kernel/nodes/values.ts';
import { valueAt } from '../../kernel/nodes/item-path.ts';

/**
 * The item modes of `merge`, over `lists` (input 1, input 2, ...; a branch not taken reads as
 * null: no items): append them, combine them by position, by matching fields, or every pairing,
 * or pass one on. Combining lays the second item's keys over the first's.
 */
export const LIST_MODES = ['append', 'by_position', 'by_fields', 'all_pairs', 'choose'] as const;
export type ListMode = (typeof LIST_MODES)[number];

export interface ListsConfig {
  mode: ListMode;
  lists: unknown[];
  fields?: { left: string; right: string }[];
  join?: 'inner' | 'left';
  choose?: number;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === null || value === undefined ? [] : [value]);
const record = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value });
const combine = (a: unknown, b: unknown): Record<string, unknown> => ({ ...record(a), ...record(b) });

export function mergeLists(config: ListsConfig): unknown[] {
  const lists = config.lists.map(asList);
  const [first = [], second = []] = lists;
  switch (config.mode) {
    case 'append':
      return lists.flat();
    case 'choose':
      return lists[config.choose ?? 0] ?? [];
    case 'by_position':
      return first.slice(0, Math.min(first.length, second.length)).map((a, i) => combine(a, second[i]));
    case 'all_pairs':
      return first.flatMap((a) => second.map((b) => combine(a, b)));
    case 'by_fields': {
      const fields = config.fields ?? [];
      const out: unknown[] = [];
      for (const a of first) {
        const matches = second.filter((b) => fields.every((f) => valueAt(a, f.left) !== undefined && sameValue(valueAt(a, f.left), valueAt(b, f.right))));
        if (matches.length) out.push(...matches.map((b) => combine(a, b)));
        else if (config.join === 'left') out.push(a);
      }
      return out;
    }
  }
}
