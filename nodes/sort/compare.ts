import { randomInt } from 'node:crypto';
import { valueAt } from '../../kernel/nodes/item-path.ts';

export const SORT_TYPES = ['auto', 'number', 'string', 'date'] as const;

export interface SortKey {
  field: string;
  order?: 'asc' | 'desc';
  type?: (typeof SORT_TYPES)[number];
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'variant' });

/** A value as its key's type sees it; undefined when it has none (sorted last). */
function keyOf(value: unknown, type: SortKey['type']): number | string | undefined {
  if (value === undefined || value === null) return undefined;
  switch (type) {
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'date': {
      const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
      return Number.isFinite(ms) ? ms : undefined;
    }
    case 'string':
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
    default:
      if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
      if (typeof value === 'boolean') return value ? 1 : 0;
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

function compareKeys(a: number | string | undefined, b: number | string | undefined, desc: boolean): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  let c: number;
  if (typeof a === 'number' && typeof b === 'number') c = a - b;
  else if (typeof a === 'string' && typeof b === 'string') c = collator.compare(a, b);
  else c = typeof a === 'number' ? -1 : 1;
  return desc ? -c : c;
}

/** A sorted copy (Array.prototype.sort is stable); each item's keys are computed once, `tick` called after each. */
export async function sortItems(items: unknown[], keys: SortKey[], tick: () => Promise<void>): Promise<unknown[]> {
  const decorated: { item: unknown; index: number; keys: ReturnType<typeof keyOf>[] }[] = [];
  for (const [index, item] of items.entries()) {
    decorated.push({ item, index, keys: keys.map((k) => keyOf(valueAt(item, k.field), k.type ?? 'auto')) });
    await tick();
  }
  decorated.sort((x, y) => {
    for (let i = 0; i < keys.length; i++) {
      const c = compareKeys(x.keys[i], y.keys[i], keys[i].order === 'desc');
      if (c !== 0) return c;
    }
    return x.index - y.index;
  });
  return decorated.map((d) => d.item);
}

/** A copy in a random order (Fisher-Yates). */
export function shuffled(items: unknown[]): unknown[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
