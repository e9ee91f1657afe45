import type { StepBudget } from '../../kernel/nodes/data-node.ts';
import { valueAt } from '../../kernel/nodes/item-path.ts';

export const AGGREGATE_OPS = ['sum', 'count', 'min', 'max', 'collect', 'concat'] as const;

export interface Aggregation {
  op: (typeof AGGREGATE_OPS)[number];
  field?: string;
  as?: string;
}

interface Group {
  key: Record<string, unknown>;
  items: unknown[];
}

function nameOf(a: Aggregation): string {
  return a.as ?? (a.field ? `${a.op}_${a.field}` : a.op);
}

function numberOf(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function extreme(values: unknown[], max: boolean): unknown {
  const numbers = values.map(numberOf).filter((n): n is number => n !== undefined);
  if (numbers.length) return max ? Math.max(...numbers) : Math.min(...numbers);
  const texts = values.filter((v): v is string => typeof v === 'string').sort();
  return texts.length ? (max ? texts.at(-1) : texts[0]) : null;
}

function compute(a: Aggregation, items: unknown[]): unknown {
  const values = a.field === undefined ? items : items.map((i) => valueAt(i, a.field!)).filter((v) => v !== undefined && v !== null);
  switch (a.op) {
    case 'count': return values.length;
    case 'sum': return values.reduce<number>((s, v) => s + (numberOf(v) ?? 0), 0);
    case 'min': return extreme(values, false);
    case 'max': return extreme(values, true);
    case 'collect': return values;
    case 'concat': return values.flatMap((v) => (Array.isArray(v) ? v : [v]));
  }
}

/** Groups in order of first appearance, each `{...key, ...results}`. */
export async function aggregate(items: unknown[], groupBy: string[], aggregations: Aggregation[], budget: StepBudget): Promise<Record<string, unknown>[]> {
  const groups = new Map<string, Group>();
  for (const item of items) {
    const key = Object.fromEntries(groupBy.map((f) => [f, valueAt(item, f) ?? null]));
    const id = JSON.stringify(groupBy.map((f) => key[f]));
    const group = groups.get(id) ?? { key, items: [] };
    group.items.push(item);
    groups.set(id, group);
    await budget.tick();
  }
  if (groups.size === 0 && groupBy.length === 0) groups.set('[]', { key: {}, items: [] });
  return [...groups.values()].map((g) => ({ ...g.key, ...Object.fromEntries(aggregations.map((a) => [nameOf(a), compute(a, g.items)])) }));
}
