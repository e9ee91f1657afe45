import { httpMethod, list, record, str, urlOrPlaceholder, type ImportWarning } from '../graph.ts';
import { readConditions } from './conditions.ts';
import { ownList, type NodeCtx, type NodeMapping } from './context.ts';
import { readCode } from './expressions.ts';
import { jsonBody } from './json-body.ts';
import { itemsValue } from './translate.ts';

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
  const keepOthers = ctx.version >= 3 ? p.includeOtherFields === true || p.include === 'all' : p.keepOnlySet !== true;
  if (keepOthers) m.config.base = '{{item}}';
  if (ctx.version >= 3 && p.includeOtherFields === true && (p.include === 'selected' || p.include === 'except')) m.problems.push(`keeping ${p.include} other fields has no equivalent (all or none)`);
  m.problems.push(...tr.problems);
  return m;
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
  if (p.language !== undefined && p.language !== 'javaScript') {
    m.problems.push(`a ${String(p.language)} Code node: only JavaScript runs in the n8n dialect`);
    return m;
  }
  const source = str(p.jsCode) ?? '';
  const read = readCode(source);
  const nodes: Record<string, unknown> = {};
  if (read.ok) {
    if (read.blocked.length) m.problems.push(`the code uses ${read.blocked.join(', ')}, which the n8n code dialect here does not have`);
    for (const name of read.nodes) nodes[name] = itemsValue(ctx.nodeItems(name));
  } else m.approx.push(`the code does not parse (${read.message}): the step fails as the n8n node would`);
  if (source.includes('{{')) m.approx.push('the code holds {{ }}, which the engine reads as a template before the code runs');
  const items = itemsValue(ctx.input);
  if (p.mode === 'runOnceForEachItem') {
    m.config = { each: items, dialect: 'n8n', code: source || 'return $json;', input: { mode: 'each', item: '{{item}}', index: '{{item_index}}', origin: '{{item_origin}}', items, nodes } };
  } else m.config = { dialect: 'n8n', code: source || 'return items;', input: { mode: 'all', items, nodes } };
  return m;
}

export function filter(ctx: NodeCtx): NodeMapping {
  const tr = ctx.translator('first');
  const m = mapping('filter', {}, (o) => (o === 0 ? { path: `${ctx.id}.output.kept`, single: false } : o === 1 ? { path: `${ctx.id}.output.discarded`, single: false } : undefined));
  const read = readConditions(ctx.p.conditions, ctx.p.combineConditions ?? ctx.p.combineOperation, tr, m.approx);
  m.problems.push(...tr.problems);
  if (read) m.config = { items: itemsValue(ctx.input), conditions: read.conditions, combine: read.combine };
  m.place = (config, targets) => {
    config.branches = { kept: targets[0] ?? [], ...(targets[1]?.length ? { discarded: targets[1] } : {}) };
  };
  return m;
}

export function sort(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const m = mapping('sort', {}, ownList(ctx.id, '.items'));
  const type = str(p.type) ?? 'simple';
  if (type !== 'simple') m.problems.push(`a ${type} sort has no equivalent (fields only)`);
  const keys = list(record(p.sortFieldsUi).sortField).map(record).filter((f) => typeof f.fieldName === 'string' && f.fieldName).map((f) => ({ field: f.fieldName, order: f.order === 'descending' ? 'desc' : 'asc' }));
  if (type === 'simple' && keys.length === 0) m.problems.push('a Sort without fields');
  m.config = { items: itemsValue(ctx.input), keys };
  return m;
}

export function limit(ctx: NodeCtx): NodeMapping {
  const max = typeof ctx.p.maxItems === 'number' ? ctx.p.maxItems : 1;
  return mapping('limit', { items: itemsValue(ctx.input), max, from: ctx.p.keep === 'lastItems' ? 'end' : 'start' }, ownList(ctx.id, '.items'));
}

const fieldList = (raw: unknown) => (typeof raw === 'string' ? raw.split(',') : list(record(raw).fields).map((f) => String(record(f).fieldName ?? ''))).map((f) => f.trim()).filter(Boolean);

export function removeDuplicates(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const m = mapping('dedupe', { items: itemsValue(ctx.input) }, ownList(ctx.id, '.items'));
  const operation = str(p.operation) ?? 'removeDuplicateInputItems';
  if (operation === 'removeItemsRepeatedInPreviousExecutions') {
    const tr = ctx.translator('first');
    const field = tr.field(p.dedupeValue, 'the value compared across runs');
    m.problems.push(...tr.problems);
    if (field !== undefined) m.config = { ...m.config, keys: [field], scope: 'binding' };
    m.approx.push("keys are remembered per binding for forget_after_days (30), not n8n's history size");
  } else if (operation !== 'removeDuplicateInputItems') m.problems.push(`Remove Duplicates '${operation}' has no equivalent`);
  else if (p.compare === 'selectedFields') m.config.keys = fieldList(p.fieldsToCompare);
  else if (p.compare === 'allFieldsExcept') m.problems.push('comparing all fields but some has no equivalent (all fields, or selected ones)');
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
  if (options.mergeLists === true) m.problems.push('merging lists into one has no equivalent');
  if (options.keepMissing === true) m.approx.push('missing and null values are left out');
  return m;
}

export { dateTime } from './map-datetime.ts';
