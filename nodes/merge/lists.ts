import { sameValue } from '../../kernel/nodes/values.ts';
import { valueAt } from '../../kernel/nodes/item-path.ts';

/**
 * The item modes of `merge`, over `lists` (input 1, input 2, ...; a branch not taken reads as
 * null: no items): append them, combine them by position, by matching fields, or every pairing,
 * or pass one on. Combining lays the later item's keys over the earlier's (by_fields: `prefer`
 * picks whose keys win); `deep` merges nested objects and lists too.
 */
export const LIST_MODES = ['append', 'by_position', 'by_fields', 'all_pairs', 'choose'] as const;
export type ListMode = (typeof LIST_MODES)[number];
export const JOINS = ['inner', 'left', 'right', 'outer', 'anti'] as const;
export type Join = (typeof JOINS)[number];

export interface ListsConfig {
  mode: ListMode;
  lists: unknown[];
  fields?: { left: string; right: string }[];
  join?: Join;
  output_from?: 'both' | 'first' | 'second';
  multiple?: 'all' | 'first';
  prefer?: 'first' | 'second' | null;
  source_key?: string | null;
  include_unpaired?: boolean;
  choose?: number | 'empty';
  deep?: boolean;
  strict?: boolean;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === null || value === undefined ? [] : [value]);
const record = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value });
const isPlain = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const put = (target: object, key: string | number, value: unknown) => Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

/** `source` laid over `target` recursively: objects key by key, lists element by element; an undefined value keeps the target's. */
function deepMerge(target: unknown, source: unknown): unknown {
  if (Array.isArray(source)) {
    const base: unknown[] = Array.isArray(target) ? [...target] : [];
    source.forEach((v, i) => put(base, i, deepMerge(base[i], v)));
    return base;
  }
  if (isPlain(source)) {
    const base: Record<string, unknown> = isPlain(target) ? { ...target } : {};
    for (const [k, v] of Object.entries(source)) put(base, k, deepMerge(Object.hasOwn(base, k) ? base[k] : undefined, v));
    return base;
  }
  return source === undefined ? target : source;
}

type Combine = (...items: unknown[]) => Record<string, unknown>;
const shallow: Combine = (...items) => Object.assign({}, ...items.map(record));
const deep: Combine = (...items) => items.map(record).reduce<unknown>((acc, item) => deepMerge(acc, item), {}) as Record<string, unknown>;
/** Equal field values: loosely (a number and its text match) or, strict, of the same type too. */
const matches = (a: unknown, b: unknown, strict: boolean): boolean => sameValue(a, b) && (!strict || typeof a === typeof b);

/** Each list's items paired by position: as many as the shortest list, or the longest with `include_unpaired` (a missing item adds nothing). */
function byPosition(lists: unknown[][], includeUnpaired: boolean, combine: Combine): unknown[] {
  if (lists.length === 0) return [];
  const count = includeUnpaired ? Math.max(...lists.map((l) => l.length)) : Math.min(...lists.map((l) => l.length));
  return Array.from({ length: count }, (_, i) => combine(...lists.map((l) => (i < l.length ? l[i] : {}))));
}

/** Called once per unit of work: lets a long merge see its step's deadline and its run's cancel. */
export type Tick = () => Promise<void>;

/** The pairs of items whose fields match: for each item of the first list (in order) its matches in the second. */
async function findMatches(first: unknown[], second: unknown[], config: ListsConfig, tick: Tick) {
  const fields = config.fields ?? [];
  const matched: { a: unknown; bs: unknown[] }[] = [];
  const unmatched1: unknown[] = [];
  const matchedIn2 = new Set<number>();
  for (const a of first) {
    const wanted = fields.map((f) => valueAt(a, f.left));
    if (wanted.some((v) => v === undefined)) {
      unmatched1.push(a);
      continue;
    }
    const hits: number[] = [];
    for (let j = 0; j < second.length; j++) {
      await tick();
      if (!fields.every((f, k) => matches(wanted[k], valueAt(second[j], f.right), config.strict === true))) continue;
      hits.push(j);
      if (config.multiple === 'first') break;
    }
    hits.forEach((j) => matchedIn2.add(j));
    if (hits.length) matched.push({ a, bs: hits.map((j) => second[j]) });
    else unmatched1.push(a);
  }
  return { matched, unmatched1, matched2: second.filter((_, j) => matchedIn2.has(j)), unmatched2: second.filter((_, j) => !matchedIn2.has(j)) };
}

async function byFields(first: unknown[], second: unknown[], config: ListsConfig, combine: Combine, tick: Tick): Promise<unknown[]> {
  const join = config.join ?? 'inner';
  const from = config.output_from ?? 'both';
  if (first.length === 0 || second.length === 0) {
    // one side has no items: nothing can match, and the anti join tags no source (as n8n's)
    if (join === 'inner' || (join === 'left' && first.length === 0) || (join === 'right' && second.length === 0)) return [];
    if (join === 'anti' && from !== 'both') return from === 'first' ? first : second;
    return [...first, ...second];
  }
  const m = await findMatches(first, second, config, tick);
  // right join: the first list's keys win unless told otherwise; every other join: the second's
  const preferFirst = (config.prefer ?? (join === 'right' ? 'first' : 'second')) === 'first';
  const merged = m.matched.flatMap(({ a, bs }) => bs.map((b) => (preferFirst ? combine(b, a) : combine(a, b))));
  switch (join) {
    case 'inner':
      if (from === 'first') return m.matched.map((x) => x.a);
      if (from === 'second') return m.matched2;
      return merged;
    case 'left':
      return [...merged, ...m.unmatched1];
    case 'right':
      return [...merged, ...m.unmatched2];
    case 'outer':
      return [...merged, ...m.unmatched1, ...m.unmatched2];
    case 'anti': {
      if (from === 'first') return m.unmatched1;
      if (from === 'second') return m.unmatched2;
      const key = config.source_key;
      const tag = (items: unknown[], source: string) => (key ? items.map((i) => ({ ...record(i), [key]: source })) : items);
      return [...tag(m.unmatched1, 'input1'), ...tag(m.unmatched2, 'input2')];
    }
  }
}

/** The combined list; `tick` is called per pairing tried (by_fields, all_pairs). */
export async function mergeLists(config: ListsConfig, tick: Tick): Promise<unknown[]> {
  const combine = config.deep ? deep : shallow;
  const lists = config.lists.map(asList);
  const [first = [], second = []] = lists;
  switch (config.mode) {
    case 'append':
      return lists.flat();
    case 'choose':
      return config.choose === 'empty' ? [{}] : (lists[config.choose ?? 0] ?? []);
    case 'by_position':
      return byPosition(lists.length >= 2 ? lists : [first, second], config.include_unpaired === true, combine);
    case 'all_pairs': {
      const out: unknown[] = [];
      for (const a of first) {
        for (const b of second) {
          out.push(combine(a, b));
          await tick();
        }
      }
      return out;
    }
    case 'by_fields':
      return byFields(first, second, config, combine, tick);
  }
}
