import { list, record } from '../graph.ts';
import { readConditions, sourceOf, type ItemCondition } from './conditions.ts';
import type { NodeCtx, NodeMapping } from './context.ts';
import { itemsValue } from './translate.ts';

/**
 * n8n's Switch as a `switch` in item mode: rules (v3 `rules.values[{conditions}]` with
 * `options.fallbackOutput` and `allMatchingOutputs`; v1/v2 `value1` + `rules.rules[{operation,
 * value2, output}]` + `fallbackOutput`), or expression mode (`output` computed per item, out of
 * `numberOutputs`): the generated code step computes each item's output index, failing the
 * step as n8n fails the node when the index is not one of its outputs, and case i takes the
 * items whose index is i.
 */
type Case = { config: Record<string, unknown>; output: number };

const isExpression = (raw: unknown): raw is string => typeof raw === 'string' && raw.startsWith('=') && raw.includes('{{');

/** The expression computing an item's output index, checked as n8n checks it. */
function outputIndexSource(raw: unknown, outputs: number): string {
  const source = isExpression(raw) ? sourceOf(raw) : JSON.stringify(raw ?? 0);
  return `((o) => { if (!Number.isInteger(Number(o)) || Number(o) < 0 || Number(o) >= ${outputs}) throw new Error('The output ' + o + ' is not allowed: it has to be between 0 and ${outputs - 1}'); return Number(o); })(${source})`;
}

function expressionCases(ctx: NodeCtx, m: NodeMapping): Case[] {
  const tr = ctx.translator('first');
  const outputs = ctx.version >= 3 ? (typeof ctx.p.numberOutputs === 'number' ? ctx.p.numberOutputs : 4) : 4;
  if (!Number.isInteger(outputs) || outputs < 1 || outputs > 100) {
    m.problems.push(`a Switch with ${String(ctx.p.numberOutputs)} outputs (1 to 100 here)`);
    return [];
  }
  const raw = ctx.p.output;
  const key = tr.operand(outputIndexSource(raw, outputs), `${isExpression(raw) ? sourceOf(raw) : JSON.stringify(raw ?? 0)} (the output index, checked to be 0 to ${outputs - 1})`);
  if (key === undefined) return [];
  return Array.from({ length: outputs }, (_, i) => ({ config: { conditions: [{ operand: key, operator: 'eq', value: i }] }, output: i }));
}

function ruleCases(ctx: NodeCtx, m: NodeMapping): { cases: Case[]; fallback?: number } {
  const tr = ctx.translator('first');
  const { p } = ctx;
  const options = record(p.options);
  const caseSensitive = options.ignoreCase !== true && options.caseSensitive !== false;
  const cases: Case[] = [];
  if (ctx.version >= 3) {
    list(record(p.rules).values).map(record).forEach((rule, i) => {
      const read = readConditions(rule.conditions, undefined, tr, m.approx, caseSensitive);
      if (read) cases.push({ config: { conditions: read.conditions, combine: read.combine }, output: i });
    });
    const fb = options.fallbackOutput;
    return { cases, fallback: fb === 'extra' ? cases.length : typeof fb === 'number' ? fb : undefined };
  }
  const value1 = p.value1 ?? (p.dataPropertyName !== undefined ? `={{ $json.${String(p.dataPropertyName)} }}` : undefined);
  for (const rule of list(record(p.rules).rules).map(record)) {
    const conditions = { [String(p.dataType ?? 'number')]: [{ value1, operation: rule.operation ?? 'equal', value2: rule.value2 }] };
    const read = readConditions(conditions, undefined, tr, m.approx, caseSensitive);
    const output = typeof rule.output === 'number' ? rule.output : cases.length;
    const [only] = read?.conditions ?? [];
    // equality with a fixed value on a field of the item: the switch's own equals on `field`
    if (only && only.operator === 'eq' && only.field !== undefined && 'value' in only && !only.ignore_case && !only.type) {
      m.config.field = only.field;
      cases.push({ config: { equals: only.value }, output });
    } else if (read) cases.push({ config: { conditions: read.conditions as ItemCondition[] }, output });
  }
  return { cases, fallback: typeof p.fallbackOutput === 'number' && p.fallbackOutput >= 0 ? p.fallbackOutput : undefined };
}

export function switchNode(ctx: NodeCtx): NodeMapping {
  const m: NodeMapping = { type: 'switch', config: {}, items: () => undefined, approx: [], problems: [] };
  let cases: Case[];
  let fallback: number | undefined;
  if (ctx.p.mode === 'expression') cases = expressionCases(ctx, m);
  else ({ cases, fallback } = ruleCases(ctx, m));
  const tr = ctx.translator('first');
  if (!m.problems.length && !tr.problems.length && cases.length === 0) m.problems.push('a Switch without a rule this importer reads');
  m.problems.push(...tr.problems);
  m.config = { ...m.config, items: itemsValue(ctx.input), cases: cases.map((c) => c.config) };
  if (ctx.p.mode !== 'expression' && record(ctx.p.options).allMatchingOutputs === true) m.config.all_matching = true;
  m.items = (o) => {
    const keys = [...cases.flatMap((c, i) => (c.output === o ? [`case_${i}`] : [])), ...(fallback === o ? ['default'] : [])];
    return keys.length === 1 ? { path: `${ctx.id}.output.${keys[0]}`, single: false } : undefined;
  };
  m.place = (config, targets) => {
    config.cases = cases.map((c) => ({ ...c.config, next: targets[c.output] ?? [] }));
    if (fallback !== undefined) config.default = targets[fallback] ?? [];
  };
  return m;
}
