import { httpMethod, list, record, str, urlOrPlaceholder, type ImportWarning } from '../graph.ts';
import { readConditions } from './conditions.ts';
import { ownList, type NodeCtx, type NodeMapping } from './context.ts';
import { readCode } from './expressions.ts';
import { jsonBody } from './json-body.ts';
import { itemsValue, pathText } from './translate.ts';

/**
 * n8n's per-item and list nodes: Edit Fields (Set), HTTP Request and Date & Time run once per
 * item (`each` over their input's items); Code keeps its mode in the n8n dialect; Filter, Sort,
 * Limit, Remove Duplicates and Aggregate work on the input's list.
 */
const VALUE_TYPES = ['string', 'number', 'boolean', 'array', 'object'];
const mapping = (type: string, config: Record<string, unknown>, items: NodeMapping['items']): NodeMapping => ({ type, config, items, approx: [], problems: [] });

/** An assignment's literal value as n8n's declared type makes it (`"5"` as a number is 5). */
function typed(value: unknown, type: unknown): unknown {
  if (typeof value !== 'string' || value.startsWith('=')) return value;
  if (type === 'number' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if ((type === 'array' || type === 'object') && value.trim()) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

/** `a.b` names nest (n8n's dot notation); false for a name that would reach an object's prototype. */
function assign(target: Record<string, unknown>, name: string, value: unknown, dots: boolean): boolean {
  const parts = dots ? name.split('.') : [name];
  if (parts.some((part) => RESERVED.has(part))) return false;
  let at = target;
  for (const part of parts.slice(0, -1)) {
    if (!at[part] || typeof at[part] !== 'object') at[part] = {};
    at = at[part] as Record<string, unknown>;
  }
  at[parts.at(-1)!] = value;
  return true;
}

/** Edit Fields (Set): v3 `assignments`, v1/v2 `values.{string,number,boolean}`; other fields kept as n8n keeps them. */
export function set(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const tr = ctx.translator('item');
  const m = mapping('transform', {}, ownList(ctx.id));
  if (p.mode === 'raw') {
    m.config = { each: itemsValue(ctx.input), set: jsonBody(p.jsonOutput ?? '{}', tr) };
  } else {
    const v3 = list(record(p.assignments).assignments).map(record).map((a) => ({ name: a.name, value: typed(a.value, a.type), type: a.type }));
    const v1 = Object.entries(record(p.values)).flatMap(([type, fields]) => list(fields).map(record).map((f) => ({ name: f.name, value: typed(f.value, type), type })));
    const set: Record<string, unknown> = {};
    const types: Record<string, string> = {};
    const dots = record(p.options).dotNotation !== false;
    for (const f of [...v1, ...v3]) {
      if (typeof f.name !== 'string' || !f.name) continue;
      if (!assign(set, f.name, tr.value(f.value ?? null), dots)) m.problems.push(`a field named '${f.name}' is not accepted`);
      // an expression's value gets the field's declared type when it resolves, as n8n converts it
      else if (typeof f.value === 'string' && f.value.startsWith('=') && typeof f.type === 'string' && VALUE_TYPES.includes(f.type) && dots) types[f.name] = f.type;
    }
    m.config = { each: itemsValue(ctx.input), set, ...(Object.keys(types).length ? { types } : {}) };
  }
  // 3.0-3.2 name what to keep in `include` (default all); 3.3 on only with includeOtherFields
  const include = ctx.version >= 3.3 ? (p.includeOtherFields === true ? str(p.include) ?? 'all' : 'none') : ctx.version >= 3 ? str(p.include) ?? 'all' : p.keepOnlySet === true ? 'none' : 'all';
  if (include === 'all') m.config.base = '{{item}}';
  else if (include === 'selected') m.config.set = { ...selectedFields(p.includeFields, record(p.options).dotNotation !== false, m), ...(m.config.set as Record<string, unknown>) };
  else if (include === 'except') {
    m.config.base = '{{item}}';
    m.config.omit = fieldList(p.excludeFields);
    if (record(p.options).dotNotation === false && (m.config.omit as string[]).some((f) => f.includes('.'))) m.approx.push('an excluded field name holding a dot is read as a path');
  }
  m.problems.push(...tr.problems);
  return m;
}

/**
 * Edit Fields' "selected" other fields: each a template of the item's value, under its last
 * path segment as n8n names it (a missing one is left out, as n8n's undefined is in JSON).
 */
function selectedFields(raw: unknown, dots: boolean, m: NodeMapping): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fieldList(raw)) {
    const path = dots ? name.split('.') : [name];
    const text = pathText(path);
    const key = path.at(-1)!;
    if (text === undefined || RESERVED.has(key)) m.problems.push(`the field '${name}' cannot be read as a path`);
    else out[key] = `{{item${text}}}`;
  }
  return out;
}

/** `{parameters: [{name, value}]}` lists (query, headers, body fields). */
const named = (raw: unknown) => list(record(raw).parameters).map(record).filter((f) => typeof f.name === 'string' && f.name);

export function http(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const tr = ctx.translator('item');
  const warnings: ImportWarning[] = [];
  const m = mapping('http', {}, ownList(ctx.id));
  let url = tr.value(urlOrPlaceholder(p.url, ctx.node.name, warnings)) as string;
  const query = p.sendQuery === true || p.queryParameters ? named(p.queryParameters) : [];
  if (query.length) {
    const pairs = query.map((q) => `${encodeURIComponent(String(q.name))}=${typeof q.value === 'string' && q.value.startsWith('=') ? tr.value(q.value) : encodeURIComponent(String(q.value ?? ''))}`);
    url += (url.includes('?') ? '&' : '?') + pairs.join('&');
    if (query.some((q) => typeof q.value === 'string' && q.value.startsWith('='))) m.approx.push('query values from expressions are put into the URL as they are, not URL-encoded');
  }
  const headers: Record<string, unknown> = Object.fromEntries(named(p.headerParameters).map((h) => [h.name, tr.value(h.value ?? '')]));
  const auth = Object.entries(ctx.credentials)[0];
  if (auth) {
    headers.Authorization = `{{${auth[1]}}}`;
    m.approx.push(`credential '${auth[0]}' is not imported: set variable ${auth[1]} to the Authorization header value`);
  }
  const full = record(record(record(p.options).response).response).fullResponse === true;
  m.config = { each: itemsValue(ctx.input), ...(full ? {} : { each_flat: true }), method: httpMethod(p.method ?? p.requestMethod), url, output: full ? 'full' : 'body' };
  if (Object.keys(headers).length) m.config.headers = headers;
  if (p.specifyBody === 'json' || typeof p.jsonBody === 'string') m.config.body = jsonBody(p.jsonBody ?? '{}', tr);
  else if (named(p.bodyParameters).length) m.config.body = Object.fromEntries(named(p.bodyParameters).map((f) => [f.name, tr.value(f.value ?? null)]));
  const options = record(p.options);
  if (typeof options.timeout === 'number' && options.timeout > 0) m.config.timeout = options.timeout / 1000;
  if (record(record(options.response).response).neverError === true) m.config.fail_on_error_status = false;
  if (full) m.approx.push("the full response is {status, ok, headers, body, url} (n8n: statusCode, statusMessage, headers, body)");
  m.approx.push(...warnings.map((w) => w.message));
  m.problems.push(...tr.problems);
  return m;
}

/** Code: JavaScript in the n8n dialect, once for all items or once per item; Python is not carried over. */
export function code(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const m = mapping('code', {}, ownList(ctx.id));
  if (p.language === 'python' || p.language === 'pythonNative') {
    m.problems.push("a Python Code node is not carried over: the code step runs python only where a Docker engine is configured (SANDBOX_DOCKER_HOST), and its python sees `input` and answers by assigning `result`, not n8n's `_input`, `_json`, `_items` and `return`");
    return m;
  }
  if (p.language !== undefined && p.language !== 'javaScript') {
    m.problems.push(`a ${String(p.language)} Code node: only JavaScript runs in the n8n dialect`);
    return m;
  }
  const source = str(p.jsCode) ?? '';
  const read = readCode(source);
  const nodes: Record<string, unknown> = {};
  if (read.ok) {
    if (read.blocked.length) m.problems.push(`the code uses ${read.blocked.join(', ')}, which the n8n code dialect here does not have`);
    m.approx.push(...read.approx);
    for (const name of read.nodes) nodes[name] = itemsValue(ctx.nodeItems(name));
  } else m.approx.push(`the code does not parse (${read.message}): the step fails as the n8n node would`);
  if (source.includes('{{')) m.approx.push('the code holds {{ }}, which the engine reads as a template before the code runs');
  const items = itemsValue(ctx.input);
  if (p.mode === 'runOnceForEachItem') {
    m.config = { each: items, dialect: 'n8n', code: source || 'return $json;', input: { mode: 'each', item: '{{item}}', index: '{{item_index}}', origin: '{{item_origin}}', items, nodes, ...ctx.dialect } };
  } else m.config = { dialect: 'n8n', code: source || 'return items;', input: { mode: 'all', items, nodes, ...ctx.dialect } };
  return m;
}

export function filter(ctx: NodeCtx): NodeMapping {
  const tr = ctx.translator('first');
  const m = mapping('filter', {}, (o) => (o === 0 ? { path: `${ctx.id}.output.kept`, single: false } : o === 1 ? { path: `${ctx.id}.output.discarded`, single: false } : undefined));
  const read = readConditions(ctx.p.conditions, ctx.p.combineConditions ?? ctx.p.combineOperation, tr, m.approx, record(ctx.p.options).ignoreCase !== true);
  m.problems.push(...tr.problems);
  if (read) m.config = { items: itemsValue(ctx.input), conditions: read.conditions, combine: read.combine };
  m.place = (config, targets) => {
    config.branches = { kept: targets[0] ?? [], ...(targets[1]?.length ? { discarded: targets[1] } : {}) };
  };
  return m;
}

/** Sort: by fields, shuffled (random), or the user's compare code in a generated n8n dialect code step. */
export function sort(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const m = mapping('sort', {}, ownList(ctx.id, '.items'));
  const type = str(p.type) ?? 'simple';
  if (type === 'random') {
    m.config = { items: itemsValue(ctx.input), shuffle: true };
    return m;
  }
  if (type === 'code') return sortByCode(ctx);
  if (type !== 'simple') m.problems.push(`a ${type} sort is not a type of n8n's Sort node`);
  const keys = list(record(p.sortFieldsUi).sortField).map(record).filter((f) => typeof f.fieldName === 'string' && f.fieldName).map((f) => ({ field: f.fieldName, order: f.order === 'descending' ? 'desc' : 'asc' }));
  if (type === 'simple' && keys.length === 0) m.problems.push('a Sort without fields');
  m.config = { items: itemsValue(ctx.input), keys };
  return m;
}

/** n8n runs `items.sort((a, b) => { <code> })` on the input's items ({json}); so does the generated step. */
function sortByCode(ctx: NodeCtx): NodeMapping {
  const source = str(ctx.p.code) ?? '';
  const m = mapping('code', {}, ownList(ctx.id));
  const read = readCode(`(a, b) => { ${source} }`);
  const nodes: Record<string, unknown> = {};
  if (read.ok && read.blocked.length) m.problems.push(`the sort code uses ${read.blocked.join(', ')}, which the n8n code dialect here does not have`);
  if (read.ok) m.approx.push(...read.approx);
  if (read.ok) for (const name of read.nodes) nodes[name] = itemsValue(ctx.nodeItems(name));
  if (!read.ok) m.approx.push(`the sort code does not parse (${read.message}): the step fails as the n8n node would`);
  if (source.includes('{{')) m.approx.push('the code holds {{ }}, which the engine reads as a template before the code runs');
  // n8n refuses code without a return before it runs: the generated step fails the same way
  const code = /\breturn\b/.test(source) ? `return items.sort((a, b) => {\n${source}\n});` : 'throw new Error("Sort code doesn\'t return. Please add a \'return\' statement to your code");';
  m.config = { dialect: 'n8n', code, input: { mode: 'all', items: itemsValue(ctx.input), nodes, ...ctx.dialect } };
  m.approx.push('the compare code runs in the n8n code dialect (a and b are {json} items), in the sandbox');
  return m;
}

export function limit(ctx: NodeCtx): NodeMapping {
  const max = typeof ctx.p.maxItems === 'number' ? ctx.p.maxItems : 1;
  return mapping('limit', { items: itemsValue(ctx.input), max, from: ctx.p.keep === 'lastItems' ? 'end' : 'start' }, ownList(ctx.id, '.items'));
}

const fieldList = (raw: unknown) => (typeof raw === 'string' ? raw.split(',') : list(record(raw).fields).map((f) => String(record(f).fieldName ?? ''))).map((f) => f.trim()).filter(Boolean);

export function removeDuplicates(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  // version 2's second output (Discarded) has the duplicates
  const m = mapping('dedupe', { items: itemsValue(ctx.input) }, (o) => ({ path: `${ctx.id}.output.${o === 1 ? 'duplicates' : 'items'}`, single: false }));
  const operation = str(p.operation) ?? 'removeDuplicateInputItems';
  // n8n 1.x named the operation removeItemsRepeatedInPreviousExecutions before removeItemsSeenInPreviousExecutions
  if (operation === 'removeItemsSeenInPreviousExecutions' || operation === 'removeItemsRepeatedInPreviousExecutions') {
    const logic = str(p.logic) ?? 'removeItemsWithAlreadySeenKeyValues';
    if (logic !== 'removeItemsWithAlreadySeenKeyValues') m.problems.push(`keeping only items whose value is higher (or later) than any before ('${logic}') has no equivalent: dedupe remembers the keys it saw, not the highest one`);
    const tr = ctx.translator('first');
    const field = tr.field(p.dedupeValue, 'the value compared across runs');
    m.problems.push(...tr.problems);
    if (field !== undefined) m.config = { ...m.config, keys: [field], scope: 'binding' };
    m.approx.push("keys are remembered per binding and step for forget_after_days (30), not n8n's history size");
    if (record(p.options).scope === 'workflow') m.approx.push("keys are kept for this step only (n8n's scope workflow shares them between its Remove Duplicates nodes)");
  } else if (operation === 'clearDeduplicationHistory') {
    m.problems.push("clearing the deduplication history has no equivalent: dedupe keeps each step's keys for forget_after_days, and no step can clear another step's keys");
  } else if (operation !== 'removeDuplicateInputItems') m.problems.push(`Remove Duplicates '${operation}' is not an operation of n8n's node`);
  else if (p.compare === 'selectedFields') m.config.keys = fieldList(p.fieldsToCompare);
  else if (p.compare === 'allFieldsExcept') {
    const exclude = fieldList(p.fieldsToExclude);
    if (exclude.length === 0) m.approx.push('no fields to exclude: n8n fails the node, here every field is compared');
    m.config.exclude = exclude;
    m.approx.push("each item is compared on all its fields but the excluded ones (n8n: the first item's fields but those)");
  }
  if (record(p.options).removeOtherFields === true) m.approx.push('other fields are kept');
  return m;
}

export function aggregate(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const m = mapping('aggregate', { items: itemsValue(ctx.input) }, ownList(ctx.id, '.groups'));
  if (p.aggregate === 'aggregateAllItemData') m.config.aggregations = [{ op: 'collect', field: '', as: str(p.destinationFieldName) ?? 'data' }];
  else {
    const fields = list(record(p.fieldsToAggregate).fieldToAggregate).map(record).filter((f) => typeof f.fieldToAggregate === 'string' && f.fieldToAggregate);
    m.config.aggregations = fields.map((f) => ({ op: 'collect', field: f.fieldToAggregate, as: f.renameField === true && typeof f.outputFieldName === 'string' && f.outputFieldName ? f.outputFieldName : f.fieldToAggregate }));
    if (fields.length === 0) m.problems.push('an Aggregate without fields');
  }
  const options = record(p.options);
  if (options.mergeLists === true) for (const a of m.config.aggregations as { op: string }[]) a.op = 'concat';
  if (options.keepMissing === true) m.approx.push('missing and null values are left out');
  return m;
}

export { dateTime } from './map-datetime.ts';
