import { buildDefinition, httpMethod, parseJsonText, unmappedNode, type ImportedDefinition, type ImportWarning, type MappedNode } from './graph.ts';

/**
 * n8n's workflow export: `{name, nodes: [{id, name, type, parameters}], connections:
 * {<source node name>: {main: [[{node: <target name>}], ...]}}}` (outputs by index: an IF node's
 * output 0 is true, 1 false; a Switch's outputs follow its rules). n8n expressions (`={{ ... }}`)
 * that read the previous node (`$json.x`) or a named one (`$('Name').item.json.x`) become our
 * templates; any other expression is kept as text, with a warning.
 */
interface N8nNode {
  id?: string;
  name: string;
  type: string;
  parameters?: Record<string, unknown>;
}
type Connections = Record<string, { main?: ({ node: string }[] | null)[] }>;

const OPERATIONS: Record<string, string> = {
  equal: 'eq', equals: 'eq', notEqual: 'ne', notEquals: 'ne', larger: 'gt', gt: 'gt', largerEqual: 'gte', gte: 'gte', smaller: 'lt', lt: 'lt',
  smallerEqual: 'lte', lte: 'lte', contains: 'contains', isEmpty: 'empty', empty: 'empty', exists: 'exists', true: 'truthy', false: 'falsy',
};

export function importN8n(data: unknown, name: string | undefined): ImportedDefinition {
  const doc = data as { name?: unknown; nodes?: unknown; connections?: unknown };
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.nodes)) throw new Error('an n8n export has a `nodes` array');
  const nodes = (doc.nodes as N8nNode[]).filter((n) => n && typeof n.name === 'string' && typeof n.type === 'string');
  if (nodes.length === 0) throw new Error('the n8n export has no nodes');
  const connections = (doc.connections && typeof doc.connections === 'object' ? doc.connections : {}) as Connections;
  const parents = new Map<string, string[]>();
  for (const [source, outs] of Object.entries(connections)) {
    for (const out of outs?.main ?? []) for (const edge of out ?? []) parents.set(edge.node, [...(parents.get(edge.node) ?? []), source]);
  }
  const warnings: ImportWarning[] = [];
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const mapped = nodes.map((node) => mapNode(node, (connections[node.name]?.main ?? []).map((o) => (o ?? []).map((e) => e.node).filter((t) => byName.has(t))), warnings));
  const built = buildDefinition('n8n', name ?? (typeof doc.name === 'string' && doc.name.trim() ? doc.name.trim() : 'Imported from n8n'), 'Imported from an n8n workflow export.', mapped, warnings);
  return translateExpressions(built, parents);
}

function mapNode(node: N8nNode, outputs: string[][], warnings: ImportWarning[]): MappedNode {
  const p = node.parameters ?? {};
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
      return { ...base, type: 'http', config: httpConfig(p) };
    case 'set':
      return { ...base, type: 'transform', config: { set: setValues(p) } };
    case 'if':
      return { ...base, type: 'condition', config: conditionConfig(p, node.name, warnings), branches: { kind: 'condition' } };
    case 'switch':
      return switchNode(base, p, node.name, warnings);
    case 'respondToWebhook': {
      const options = (p.options ?? {}) as { responseCode?: unknown };
      const body = p.responseBody ?? (p.respondWith === 'text' ? p.responseBody : undefined);
      return { ...base, type: 'respond', config: { status: typeof options.responseCode === 'number' ? options.responseCode : 200, ...(body !== undefined ? { body: jsonBody(body) } : {}) } };
    }
    case 'wait':
      return { ...base, type: 'wait', config: waitConfig(p) };
    case 'merge':
      return { ...base, type: 'merge', config: {} };
    case 'noOp':
      return { ...base, type: 'note', config: { text: `Imported from n8n: '${node.name}' (no operation).` }, outputs: [outputs.flat()] };
    case 'stickyNote':
      return { ...base, type: 'note', config: { text: String(p.content ?? '').slice(0, 20000) }, outputs: [[]] };
    case 'stopAndError':
      return { ...base, type: 'stop', config: { fail: true, message: String(p.errorMessage ?? 'Stopped').slice(0, 2000) } };
    default:
      return unmappedNode('n8n', node.name, node.name, node.type, outputs);
  }
}

function httpConfig(p: Record<string, unknown>): Record<string, unknown> {
  const config: Record<string, unknown> = { method: httpMethod(p.method ?? p.requestMethod), url: typeof p.url === 'string' && p.url ? p.url : 'https://example.invalid/' };
  const headers = ((p.headerParameters as { parameters?: { name?: string; value?: unknown }[] } | undefined)?.parameters ?? []).filter((h) => h.name);
  if (headers.length) config.headers = Object.fromEntries(headers.map((h) => [h.name!, String(h.value ?? '')]));
  if (typeof p.jsonBody === 'string') config.body = jsonBody(p.jsonBody);
  else {
    const fields = ((p.bodyParameters as { parameters?: { name?: string; value?: unknown }[] } | undefined)?.parameters ?? []).filter((f) => f.name);
    if (fields.length) config.body = Object.fromEntries(fields.map((f) => [f.name!, f.value ?? null]));
  }
  return config;
}

/** Set node: v1 `values: {string: [{name, value}], number: [...], boolean: [...]}`, v3 `assignments.assignments: [{name, value}]`. */
function setValues(p: Record<string, unknown>): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  const v1 = (p.values ?? {}) as Record<string, { name?: string; value?: unknown }[]>;
  for (const list of Object.values(v1)) if (Array.isArray(list)) for (const f of list) if (f?.name) set[f.name] = f.value ?? null;
  const v3 = ((p.assignments as { assignments?: { name?: string; value?: unknown }[] } | undefined)?.assignments ?? []);
  for (const a of v3) if (a?.name) set[a.name] = a.value ?? null;
  return set;
}

function conditionConfig(p: Record<string, unknown>, name: string, warnings: ImportWarning[]): Record<string, unknown> {
  // v2: conditions.conditions[{leftValue, rightValue, operator: {operation}}]; v1: conditions.<type>[{value1, operation, value2}]
  const conds = p.conditions as Record<string, unknown> | undefined;
  const v2 = (conds?.conditions as { leftValue?: unknown; rightValue?: unknown; operator?: { operation?: string } }[] | undefined) ?? [];
  const v1 = Object.values(conds ?? {}).filter(Array.isArray).flat() as { value1?: unknown; value2?: unknown; operation?: string }[];
  const first = v2[0] ? { left: v2[0].leftValue, right: v2[0].rightValue, op: v2[0].operator?.operation } : v1[0] ? { left: v1[0].value1, right: v1[0].value2, op: v1[0].operation } : undefined;
  if (!first) {
    warnings.push({ source: name, message: 'an IF node without a condition this importer reads: it tests nothing (always false); edit it' });
    return { expression: false };
  }
  if (v2.length + v1.length > 1) warnings.push({ source: name, message: 'an IF node with several conditions: only the first was imported' });
  const operator = OPERATIONS[first.op ?? ''];
  if (!operator) warnings.push({ source: name, message: `condition operation '${first.op}' has no equivalent: the left value's truthiness decides` });
  return { expression: first.left ?? null, ...(operator ? { operator } : {}), ...(operator && !['empty', 'exists', 'truthy', 'falsy'].includes(operator) ? { value: first.right ?? null } : {}) };
}

function switchNode(base: Omit<MappedNode, 'type' | 'config'>, p: Record<string, unknown>, name: string, warnings: ImportWarning[]): MappedNode {
  // v1/v2: value1 (or dataPropertyName) + rules.rules[{value2, output}] + fallbackOutput
  const rules = ((p.rules as { rules?: { value2?: unknown; output?: number }[] } | undefined)?.rules ?? []);
  if (rules.length === 0) {
    warnings.push({ source: name, message: 'a Switch in rules mode this importer does not read: imported as a note' });
    return unmappedNode('n8n', base.key, name, base.source_type, base.outputs);
  }
  const cases: unknown[] = [];
  const outputs: string[][] = [];
  rules.forEach((rule, i) => {
    cases.push(rule.value2 ?? null);
    outputs.push(base.outputs[typeof rule.output === 'number' ? rule.output : i] ?? []);
  });
  const fallback = typeof p.fallbackOutput === 'number' ? p.fallbackOutput : undefined;
  if (fallback !== undefined) outputs.push(base.outputs[fallback] ?? []);
  return { ...base, outputs, type: 'switch', config: { value: p.value1 ?? p.dataPropertyName ?? null }, branches: { kind: 'switch', cases, default_output: fallback !== undefined ? cases.length : undefined } };
}

function waitConfig(p: Record<string, unknown>): Record<string, unknown> {
  if (p.resume === 'webhook' || p.resume === 'form') return { wait_type: 'event' };
  const units: Record<string, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86400 };
  const amount = typeof p.amount === 'number' ? p.amount : 1;
  return { wait_type: 'timer', seconds: Math.min(31536000, Math.max(0, amount * (units[String(p.unit ?? 'seconds')] ?? 1))) };
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
function translateExpressions(built: ImportedDefinition, parents: Map<string, string[]>): ImportedDefinition {
  const stepOf = new Map(built.mapping.map((m) => [m.source, m.step_id]));
  const path = (p: string) => p.replace(/\[["']([^"']+)["']\]/g, '.$1');
  for (const step of built.steps) {
    const source = built.mapping.find((m) => m.step_id === step.id)?.source;
    const parentSteps = (parents.get(source ?? '') ?? []).map((n) => stepOf.get(n)).filter(Boolean);
    const convert = (text: string): string =>
      text.replace(/^=/, '').replace(EXPRESSION, (whole, expr: string) => {
        const own = JSON_PATH.exec(expr);
        if (own && parentSteps.length === 1) return `{{${parentSteps[0]}.output${path(own[1])}}}`;
        const named = NAMED.exec(expr);
        const target = named ? stepOf.get(named[1] ?? named[2]) : undefined;
        if (named && target) return `{{${target}.output${path(named[3])}}}`;
        built.warnings.push({ source: source ?? step.id, message: `expression ${whole} was kept as text: it has no equivalent template` });
        return whole;
      });
    const walk = (v: unknown): unknown =>
      typeof v === 'string' && v.startsWith('=') ? convert(v) : Array.isArray(v) ? v.map(walk) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)])) : v;
    step.config = walk(step.config) as Record<string, unknown>;
  }
  return built;
}
