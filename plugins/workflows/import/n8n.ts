import {
  buildDefinition, httpMethod, ImportError, list, mapStrings, outputsOf, own, parseJsonText, record, statusOr200, str, timerSeconds, titleOf,
  unmappedNode, urlOrPlaceholder, type ImportedDefinition, type ImportWarning, type MappedNode,
} from './graph.ts';

/**
 * n8n's workflow export: `{name, nodes: [{id, name, type, parameters}], connections:
 * {<source node name>: {main: [[{node: <target name>}], ...]}}}` (outputs by index: an IF node's
 * output 0 is true, 1 false; a Switch's outputs follow its rules). n8n expressions (`={{ ... }}`)
 * that read the previous node (`$json.x`) or a named one (`$('Name').item.json.x`) become our
 * templates; any other expression is kept as text, with a warning.
 */
interface N8nNode {
  name: string;
  type: string;
  parameters?: unknown;
}

const OPERATIONS: Record<string, string> = {
  equal: 'eq', equals: 'eq', notEqual: 'ne', notEquals: 'ne', larger: 'gt', gt: 'gt', largerEqual: 'gte', gte: 'gte', smaller: 'lt', lt: 'lt',
  smallerEqual: 'lte', lte: 'lte', contains: 'contains', isEmpty: 'empty', empty: 'empty', exists: 'exists', true: 'truthy', false: 'falsy',
};
const UNITS: Record<string, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86400 };

export function importN8n(data: unknown, name: string | undefined): ImportedDefinition {
  const doc = record(data);
  if (!Array.isArray(doc.nodes)) throw new ImportError('an n8n export has a `nodes` array');
  const nodes = doc.nodes.filter((n): n is N8nNode => typeof record(n).name === 'string' && typeof record(n).type === 'string');
  if (nodes.length === 0) throw new ImportError('the n8n export has no nodes');
  const connections = record(doc.connections);
  const warnings: ImportWarning[] = [];
  const names = new Set(nodes.map((n) => n.name));
  const outputs = nodes.map((node) => outputsOf(record(own(connections, node.name)).main, (edge) => record(edge).node, (t) => names.has(t), node.name, warnings));
  const parents = new Map<string, Set<string>>();
  nodes.forEach((node, i) => {
    for (const target of outputs[i].flat()) parents.set(target, (parents.get(target) ?? new Set()).add(node.name));
  });
  const mapped = nodes.map((node, i) => mapNode(node, outputs[i], warnings));
  const built = buildDefinition('n8n', titleOf(name, doc.name, 'n8n'), 'Imported from an n8n workflow export.', mapped, warnings);
  return translateExpressions(built, parents);
}

function mapNode(node: N8nNode, outputs: string[][], warnings: ImportWarning[]): MappedNode {
  const p = record(node.parameters);
  const short = node.type.replace(/^n8n-nodes-base\./, '');
  const base = { key: node.name, name: node.name, source_type: node.type, outputs: outputs.length ? outputs : [[]] };
  switch (short) {
    case 'manualTrigger':
    case 'start':
      return { ...base, type: 'trigger', config: {} };
    case 'scheduleTrigger':
    case 'cron':
      warnings.push({ source: node.name, message: 'a schedule trigger: set the schedule on the binding (trigger type schedule)' });
      return { ...base, type: 'trigger', config: { description: 'Imported schedule trigger' } };
    case 'webhook':
      return { ...base, type: 'webhook', config: {} };
    case 'httpRequest':
      return { ...base, type: 'http', config: httpConfig(p, node.name, warnings) };
    case 'set':
      return { ...base, type: 'transform', config: { set: setValues(p) } };
    case 'if':
      return { ...base, type: 'condition', config: conditionConfig(p, node.name, warnings), branches: { kind: 'condition' } };
    case 'switch':
      return switchNode(base, p, node.name, warnings);
    case 'respondToWebhook': {
      const status = statusOr200(record(p.options).responseCode, node.name, warnings);
      return { ...base, type: 'respond', config: { status, ...(p.responseBody !== undefined ? { body: jsonBody(p.responseBody) } : {}) } };
    }
    case 'wait':
      return { ...base, type: 'wait', config: waitConfig(p, node.name, warnings) };
    case 'merge':
      return { ...base, type: 'merge', config: {} };
    case 'noOp':
      return { ...base, type: 'note', config: { text: `Imported from n8n: '${node.name}' (no operation).` }, outputs: [outputs.flat()] };
    case 'stickyNote':
      return { ...base, type: 'note', config: { text: (str(p.content) ?? '').slice(0, 20000) }, outputs: [[]] };
    case 'stopAndError':
      return { ...base, type: 'stop', config: { fail: true, message: (str(p.errorMessage) || 'Stopped').slice(0, 2000) } };
    default:
      return unmappedNode('n8n', node.name, node.name, node.type, outputs);
  }
}

/** n8n's `{parameters: [{name, value}]}` lists (headers, body fields), as entries. */
function namedValues(raw: unknown): [string, unknown][] {
  return list(record(raw).parameters).map(record).filter((f) => typeof f.name === 'string' && f.name).map((f) => [f.name as string, f.value ?? null]);
}

function httpConfig(p: Record<string, unknown>, name: string, warnings: ImportWarning[]): Record<string, unknown> {
  const config: Record<string, unknown> = { method: httpMethod(p.method ?? p.requestMethod), url: urlOrPlaceholder(p.url, name, warnings) };
  const headers = namedValues(p.headerParameters);
  if (headers.length) config.headers = Object.fromEntries(headers.map(([k, v]) => [k, typeof v === 'object' ? '' : String(v)]));
  if (typeof p.jsonBody === 'string') config.body = jsonBody(p.jsonBody);
  else {
    const fields = namedValues(p.bodyParameters);
    if (fields.length) config.body = Object.fromEntries(fields);
  }
  return config;
}

/** Set node: v1 `values: {string: [{name, value}], number: [...], boolean: [...]}`, v3 `assignments.assignments: [{name, value}]`. */
function setValues(p: Record<string, unknown>): Record<string, unknown> {
  const fields = [...Object.values(record(p.values)).flatMap(list), ...list(record(p.assignments).assignments)].map(record);
  return Object.fromEntries(fields.filter((f) => typeof f.name === 'string' && f.name).map((f) => [f.name, f.value ?? null]));
}

function conditionConfig(p: Record<string, unknown>, name: string, warnings: ImportWarning[]): Record<string, unknown> {
  // v2: conditions.conditions[{leftValue, rightValue, operator: {operation}}]; v1: conditions.<type>[{value1, operation, value2}]
  const conds = record(p.conditions);
  const v2 = list(conds.conditions).map(record).map((c) => ({ left: c.leftValue, right: c.rightValue, op: record(c.operator).operation }));
  const v1 = Object.entries(conds).filter(([k]) => k !== 'conditions').flatMap(([, v]) => list(v)).map(record).map((c) => ({ left: c.value1, right: c.value2, op: c.operation }));
  const all = [...v2, ...v1];
  if (all.length === 0) {
    warnings.push({ source: name, message: 'an IF node without a condition this importer reads: it tests nothing (always false); edit it' });
    return { expression: false };
  }
  if (all.length > 1) warnings.push({ source: name, message: 'an IF node with several conditions: only the first was imported' });
  const first = all[0];
  const operator = own(OPERATIONS, first.op);
  if (!operator) warnings.push({ source: name, message: `condition operation '${str(first.op) ?? ''}' has no equivalent: the left value's truthiness decides` });
  return { expression: first.left ?? null, ...(operator ? { operator } : {}), ...(operator && !['empty', 'exists', 'truthy', 'falsy'].includes(operator) ? { value: first.right ?? null } : {}) };
}

function switchNode(base: Omit<MappedNode, 'type' | 'config'>, p: Record<string, unknown>, name: string, warnings: ImportWarning[]): MappedNode {
  // v1/v2: value1 (or dataPropertyName) + rules.rules[{value2, output}] + fallbackOutput
  const rules = list(record(p.rules).rules).map(record);
  if (rules.length === 0) {
    warnings.push({ source: name, message: 'a Switch in rules mode this importer does not read: imported as a note' });
    return unmappedNode('n8n', base.key, name, base.source_type, base.outputs);
  }
  const at = (index: unknown, otherwise: number) => base.outputs[typeof index === 'number' ? index : otherwise] ?? [];
  const cases = rules.map((rule) => rule.value2 ?? null);
  const outputs = rules.map((rule, i) => at(rule.output, i));
  const fallback = typeof p.fallbackOutput === 'number' ? p.fallbackOutput : undefined;
  if (fallback !== undefined) outputs.push(at(fallback, -1));
  return { ...base, outputs, type: 'switch', config: { value: p.value1 ?? p.dataPropertyName ?? null }, branches: { kind: 'switch', cases, default_output: fallback !== undefined ? cases.length : undefined } };
}

function waitConfig(p: Record<string, unknown>, name: string, warnings: ImportWarning[]): Record<string, unknown> {
  if (p.resume === 'webhook' || p.resume === 'form') return { wait_type: 'event' };
  return { wait_type: 'timer', seconds: timerSeconds(p.amount, own(UNITS, p.unit ?? 'seconds') ?? 1, name, warnings) };
}

/** A JSON body n8n kept as text (an expression when it starts with `=`): parsed when it is plain JSON. */
function jsonBody(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const parsed = parseJsonText(value.replace(/^=/, ''));
  return typeof parsed === 'string' ? value : parsed;
}

const EXPRESSION = /\{\{\s*(.+?)\s*\}\}/g;
const JSON_PATH = /^\$json((?:\.[A-Za-z_$][\w$]*|\[\d+\]|\[["'][^"']+["']\])*)$/;
const NAMED = /^\$(?:\(['"](.+?)['"]\)\.(?:item|first\(\)|last\(\))|node\[["'](.+?)["']\])\.json((?:\.[A-Za-z_$][\w$]*|\[\d+\]|\[["'][^"']+["']\])*)$/;

/** n8n expressions (strings starting with `=`) in every config, as our templates where they can be. */
function translateExpressions(built: ImportedDefinition, parents: Map<string, Set<string>>): ImportedDefinition {
  const stepOf = new Map(built.mapping.map((m) => [m.source_id, m.step_id]));
  const sourceOf = new Map(built.mapping.map((m) => [m.step_id, m.source_id]));
  const path = (p: string) => p.replace(/\[["']([^"']+)["']\]/g, '.$1');
  for (const step of built.steps) {
    const source = sourceOf.get(step.id);
    const parentSteps = [...(parents.get(source ?? '') ?? [])].map((n) => stepOf.get(n)).filter(Boolean);
    const convert = (text: string): string =>
      text.replace(/^=/, '').replace(EXPRESSION, (whole, expr: string) => {
        const previous = JSON_PATH.exec(expr);
        if (previous && parentSteps.length === 1) return `{{${parentSteps[0]}.output${path(previous[1])}}}`;
        const named = NAMED.exec(expr);
        const target = named ? stepOf.get(named[1] ?? named[2]) : undefined;
        if (named && target) return `{{${target}.output${path(named[3])}}}`;
        built.warnings.push({ source: source ?? step.id, message: `expression ${whole} was kept as text: it has no equivalent template` });
        return whole;
      });
    step.config = mapStrings(step.config, (text) => (text.startsWith('=') ? convert(text) : text)) as Record<string, unknown>;
  }
  return built;
}
