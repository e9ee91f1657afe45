import { list, record, str } from '../graph.ts';
import type { NodeCtx, NodeMapping } from './context.ts';
import { itemsValue } from './translate.ts';

/**
 * n8n's Merge (v1-v3) as a `merge` over its inputs' lists: append; combine by position (every
 * input, `includeUnpaired`), by matching fields (every join: keep matches, enrich input 1 or 2,
 * keep everything, keep non-matches, with `outputDataFrom`, `multipleMatches` and the clash
 * preference), every pairing; choose a branch (an input's items or one empty item). SQL
 * (`combineBySql`) is not carried over.
 */
const JOINS: Record<string, string> = { keepMatches: 'inner', enrichInput1: 'left', enrichInput2: 'right', keepEverything: 'outer', keepNonMatches: 'anti' };
const FROM: Record<string, string> = { both: 'both', input1: 'first', input2: 'second' };

function mergeFields(p: Record<string, unknown>): { left: string; right: string }[] {
  const advanced = list(record(p.mergeByFields).values).map(record).map((f) => ({ left: String(f.field1 ?? ''), right: String(f.field2 ?? '') }));
  if (advanced.length) return advanced;
  if (typeof p.fieldsToMatchString === 'string') return p.fieldsToMatchString.split(',').map((f) => f.trim()).filter(Boolean).map((f) => ({ left: f, right: f }));
  if (typeof p.propertyName1 === 'string' && typeof p.propertyName2 === 'string') return [{ left: p.propertyName1, right: p.propertyName2 }];
  return [];
}

/** The clash option (`options.clashHandling.values`): whose keys win and how deep (n8n: deep unless shallowMerge), or a problem for what has no equivalent. */
function clash(options: Record<string, unknown>, m: NodeMapping, config: Record<string, unknown>): string | undefined {
  const values = record(record(options.clashHandling).values);
  const resolve = str(values.resolveClash);
  if (resolve === 'addSuffix') m.problems.push("a Merge renaming clashing fields with a suffix (_1, _2) has no equivalent: prefer one input's values instead");
  if (values.mergeMode !== 'shallowMerge') config.deep = true;
  if (values.overrideEmpty === true) m.approx.push("empty values (null, '') overwrite the other input's here");
  return resolve;
}

function byFields(ctx: NodeCtx, m: NodeMapping, lists: unknown[], joinMode: string): Record<string, unknown> | undefined {
  const { p } = ctx;
  const options = record(p.options);
  const join = JOINS[joinMode];
  if (!join) {
    m.problems.push(`a Merge by fields with output type '${joinMode}' has no equivalent`);
    return undefined;
  }
  const fields = mergeFields(p);
  if (fields.length === 0 || fields.some((f) => !f.left || !f.right)) m.problems.push('a Merge by fields without both fields of every pair to match');
  const config: Record<string, unknown> = { mode: 'by_fields', lists, fields, join };
  const from = FROM[str(p.outputDataFrom) ?? 'both'] ?? 'both';
  if (join === 'inner' || join === 'anti') {
    if (from !== 'both') config.output_from = from;
    else if (join === 'anti') config.source_key = '_source';
  }
  if (options.multipleMatches === 'first') config.multiple = 'first';
  const resolve = clash(options, m, config);
  if (resolve === 'preferInput1' && join !== 'right') config.prefer = 'first';
  if ((resolve === 'preferLast' || resolve === 'preferInput2') && join === 'right') config.prefer = 'second';
  if (options.fuzzyCompare !== true) config.strict = true;
  else m.approx.push("fuzzy compare: a number matches its text, but empty values (null, '', []) do not match one another as in n8n");
  if (options.disableDotNotation === true) m.approx.push("field names with a dot read nested fields here");
  return config;
}

function byPosition(ctx: NodeCtx, m: NodeMapping): Record<string, unknown> {
  const options = record(ctx.p.options);
  let lists = ctx.inputs.map(itemsValue);
  const config: Record<string, unknown> = { mode: 'by_position' };
  const resolve = clash(options, m, config);
  const preferred = resolve?.startsWith('preferInput') ? Number(resolve.slice('preferInput'.length)) - 1 : lists.length - 1;
  // the preferred input's keys win: it goes last
  if (preferred >= 0 && preferred < lists.length) lists = [...lists.filter((_, i) => i !== preferred), lists[preferred]];
  return { ...config, lists, ...(options.includeUnpaired === true ? { include_unpaired: true } : {}) };
}

function choose(ctx: NodeCtx, m: NodeMapping, lists: unknown[]): Record<string, unknown> | undefined {
  const { p } = ctx;
  const output = str(p.output) ?? 'specifiedInput';
  if (output === 'empty') return { mode: 'choose', lists, choose: 'empty' };
  const which = output === 'specifiedInput' ? Number(p.useDataOfInput ?? 1) : output === 'input2' ? 2 : 1;
  if (!Number.isInteger(which) || which < 1 || which > lists.length) {
    m.problems.push(`a Merge choosing input ${String(p.useDataOfInput)}, which it does not have`);
    return undefined;
  }
  return { mode: 'choose', lists, choose: which - 1 };
}

export function merge(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const m: NodeMapping = { type: 'merge', config: {}, items: () => ({ path: `${ctx.id}.output`, single: false }), approx: [], problems: [] };
  const mode = str(p.mode) ?? 'append';
  const how = str(p.combineBy) ?? str(p.combinationMode) ?? (ctx.version >= 3 ? 'combineByFields' : 'mergeByFields');
  const all = ctx.inputs.map(itemsValue);
  const two = all.slice(0, 2);
  const combining = mode === 'combine' ? how : mode;
  let config: Record<string, unknown> | undefined;
  if (mode === 'append') config = { mode: 'append', lists: all };
  else if (combining === 'combineByPosition' || combining === 'mergeByPosition' || combining === 'mergeByIndex') config = byPosition(ctx, m);
  else if (combining === 'combineAll' || combining === 'multiplex') {
    config = { mode: 'all_pairs', lists: two };
    clash(record(p.options), m, config);
  } else if (combining === 'combineByFields' || combining === 'mergeByFields' || combining === 'mergeByKey') config = byFields(ctx, m, two, str(p.joinMode) ?? 'keepMatches');
  else if (mode === 'keepKeyMatches' || mode === 'removeKeyMatches') {
    config = { mode: 'by_fields', lists: two, fields: mergeFields(p), join: mode === 'keepKeyMatches' ? 'inner' : 'anti', output_from: 'first', strict: true };
  } else if (mode === 'chooseBranch' || mode === 'passThrough') config = choose(ctx, m, mode === 'passThrough' ? two : all);
  else if (mode === 'wait') config = { mode: 'choose', lists: two, choose: 'empty' };
  else if (mode === 'combineBySql' || combining === 'combineBySql') {
    m.problems.push('a Merge by SQL query: n8n runs it with alasql over input1..inputN, and there is no SQL engine over items here (the n8n code dialect has none either): rewrite it as a Code node or a Merge by fields');
  } else m.problems.push(`a Merge in mode '${mode}' has no equivalent`);
  if (config) m.config = config;
  return m;
}
