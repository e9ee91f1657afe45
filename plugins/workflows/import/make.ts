import {
  buildDefinition, httpMethod, ImportError, list, mapStrings, parseJsonText, record, statusOr200, str, timerSeconds, titleOf, unmappedNode,
  urlOrPlaceholder, type ImportedDefinition, type ImportWarning, type MappedNode,
} from './graph.ts';

/**
 * A Make scenario blueprint: `{name, flow: [{id, module, mapper, parameters, metadata}, ...]}`,
 * each module followed by the next one; a router (`builtin:BasicRouter`) has `routes: [{flow:
 * [...]}]`, which run side by side here (a `parallel` step). Route filters are not imported.
 * Mapped expressions (`{{1.field}}`) become templates of the step module 1 became.
 */
interface MakeModule {
  id: number | string;
  module: string;
  mapper?: unknown;
  metadata?: unknown;
  routes?: unknown;
}

/** Make's own longest sleep */
const MAX_SLEEP_SECONDS = 300;

export function importMake(data: unknown, name: string | undefined): ImportedDefinition {
  const doc = record(data);
  if (!Array.isArray(doc.flow)) throw new ImportError('a Make blueprint has a `flow` array of modules');
  const warnings: ImportWarning[] = [];
  const nodes: MappedNode[] = [];
  walk(doc.flow, nodes, warnings);
  if (nodes.length === 0) throw new ImportError('the Make blueprint has no modules');
  const built = buildDefinition('Make', titleOf(name, doc.name, 'Make'), 'Imported from a Make scenario blueprint.', nodes, warnings);
  return translateMappings(built);
}

/** Maps a module list; returns the key of its first module, so a router can point at each route. */
function walk(flow: unknown[], out: MappedNode[], warnings: ImportWarning[]): string | undefined {
  const modules = flow.filter((m): m is MakeModule => ['number', 'string'].includes(typeof record(m).id) && typeof record(m).module === 'string');
  const mapped = modules.map((m) => mapModule(m, warnings));
  mapped.forEach((node, i) => {
    out.push(node);
    const module = modules[i];
    if (module.module === 'builtin:BasicRouter') {
      node.outputs = [list(module.routes).map((route) => {
        const routeFlow = record(route).flow;
        if (!Array.isArray(routeFlow)) {
          warnings.push({ source: node.name, message: 'a route without a `flow` list of modules was left out' });
          return undefined;
        }
        if (record(routeFlow[0]).filter) warnings.push({ source: node.name, message: 'a route filter was not imported: every route runs' });
        return walk(routeFlow, out, warnings);
      }).filter((k): k is string => k !== undefined)];
    } else if (mapped[i + 1]) node.outputs = [[mapped[i + 1].key]];
  });
  return mapped[0]?.key;
}

function mapModule(m: MakeModule, warnings: ImportWarning[]): MappedNode {
  const key = String(m.id);
  const name = str(record(record(m.metadata).designer).name)?.trim() || `${m.module.split(':').pop()} ${m.id}`;
  const mapper = record(m.mapper);
  const base = { key, name, source_type: m.module, outputs: [[]] as string[][] };
  switch (m.module) {
    case 'gateway:CustomWebHook':
      return { ...base, type: 'webhook', config: {} };
    case 'gateway:WebhookRespond':
      return { ...base, type: 'respond', config: { status: statusOr200(mapper.status, name, warnings), ...(mapper.body !== undefined ? { body: parseJsonText(mapper.body) } : {}) } };
    case 'http:ActionSendData':
    case 'http:ActionSendDataBasicAuth':
    case 'http:MakeRequest':
      return { ...base, type: 'http', config: { method: httpMethod(mapper.method), url: urlOrPlaceholder(mapper.url, name, warnings), ...(mapper.data !== undefined ? { body: parseJsonText(mapper.data) } : {}) } };
    case 'builtin:BasicRouter':
      return { ...base, type: 'parallel', config: {} };
    case 'util:SetVariable2':
    case 'util:SetVariable':
      return { ...base, type: 'transform', config: { set: { [str(mapper.name) || 'value']: mapper.value ?? null } } };
    case 'util:SetVariables': {
      const vars = list(mapper.variables).map(record).filter((v) => typeof v.name === 'string' && v.name);
      return { ...base, type: 'transform', config: { set: Object.fromEntries(vars.map((v) => [v.name, v.value ?? null])) } };
    }
    case 'util:FunctionSleep':
      return { ...base, type: 'wait', config: { wait_type: 'timer', seconds: timerSeconds(mapper.duration, 1, name, warnings, MAX_SLEEP_SECONDS) } };
    default:
      return unmappedNode('Make', key, name, m.module, []);
  }
}

/** `{{3.body.id}}` (module 3's output) becomes `{{<step of module 3>.output.body.id}}`. */
function translateMappings(built: ImportedDefinition): ImportedDefinition {
  const byKey = new Map(built.mapping.map((m) => [m.source_id, m.step_id]));
  const translate = (text: string) => text.replace(/\{\{\s*(\d+)\.([^{}]+?)\s*\}\}/g, (whole, id: string, path: string) => (byKey.has(id) ? `{{${byKey.get(id)}.output.${path}}}` : whole));
  for (const step of built.steps) step.config = mapStrings(step.config, translate) as Record<string, unknown>;
  return built;
}
