import { buildDefinition, httpMethod, parseJsonText, unmappedNode, type ImportedDefinition, type ImportWarning, type MappedNode } from './graph.ts';

/**
 * A Make scenario blueprint: `{name, flow: [{id, module, mapper, parameters, metadata}, ...]}`,
 * each module followed by the next one; a router (`builtin:BasicRouter`) has `routes: [{flow:
 * [...]}]`, which run side by side here (a `parallel` step). Route filters are not imported.
 * Mapped expressions (`{{1.field}}`) become templates of the step module 1 became.
 */
interface MakeModule {
  id: number | string;
  module: string;
  mapper?: Record<string, unknown> | null;
  parameters?: Record<string, unknown> | null;
  metadata?: { designer?: { name?: string } } | null;
  routes?: { flow?: MakeModule[]; filter?: unknown }[];
  filter?: unknown;
}

export function importMake(data: unknown, name: string | undefined): ImportedDefinition {
  const doc = data as { name?: unknown; flow?: unknown };
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.flow)) throw new Error('a Make blueprint has a `flow` array of modules');
  const warnings: ImportWarning[] = [];
  const nodes: MappedNode[] = [];
  walk(doc.flow as MakeModule[], nodes, warnings);
  if (nodes.length === 0) throw new Error('the Make blueprint has no modules');
  const built = buildDefinition('Make', name ?? (typeof doc.name === 'string' && doc.name.trim() ? doc.name.trim() : 'Imported from Make'), 'Imported from a Make scenario blueprint.', nodes, warnings);
  return translateMappings(built);
}

/** Maps a module list; returns the key of its first module, so a router can point at each route. */
function walk(flow: MakeModule[], out: MappedNode[], warnings: ImportWarning[]): string | undefined {
  const modules = flow.filter((m) => m && (typeof m.id === 'number' || typeof m.id === 'string') && typeof m.module === 'string');
  const mapped = modules.map((m) => mapModule(m));
  mapped.forEach((node, i) => {
    out.push(node);
    const module = modules[i];
    if (module.module === 'builtin:BasicRouter') {
      node.outputs = [(module.routes ?? []).map((route) => {
        if (route.flow?.[0]?.filter) warnings.push({ source: node.name, message: 'a route filter was not imported: every route runs' });
        return walk(route.flow ?? [], out, warnings);
      }).filter((k): k is string => k !== undefined)];
    } else if (mapped[i + 1]) node.outputs = [[mapped[i + 1].key]];
  });
  return mapped[0]?.key;
}

function mapModule(m: MakeModule): MappedNode {
  const key = String(m.id);
  const label = m.metadata?.designer?.name;
  const name = typeof label === 'string' && label.trim() ? label.trim() : `${m.module.split(':').pop()} ${m.id}`;
  const mapper = m.mapper ?? {};
  const base = { key, name, source_type: m.module, outputs: [[]] as string[][] };
  switch (m.module) {
    case 'gateway:CustomWebHook':
      return { ...base, type: 'webhook', config: {} };
    case 'gateway:WebhookRespond': {
      const status = Number(mapper.status ?? 200);
      return { ...base, type: 'respond', config: { status: Number.isInteger(status) && status >= 100 && status <= 599 ? status : 200, ...(mapper.body !== undefined ? { body: parseJsonText(mapper.body) } : {}) } };
    }
    case 'http:ActionSendData':
    case 'http:ActionSendDataBasicAuth':
    case 'http:MakeRequest': {
      return { ...base, type: 'http', config: { method: httpMethod(mapper.method), url: typeof mapper.url === 'string' && mapper.url ? mapper.url : 'https://example.invalid/', ...(mapper.data !== undefined ? { body: parseJsonText(mapper.data) } : {}) } };
    }
    case 'builtin:BasicRouter':
      return { ...base, type: 'parallel', config: {} };
    case 'util:SetVariable2':
    case 'util:SetVariable':
      return { ...base, type: 'transform', config: { set: { [String(mapper.name ?? 'value')]: mapper.value ?? null } } };
    case 'util:SetVariables': {
      const vars = (Array.isArray(mapper.variables) ? mapper.variables : []) as { name?: string; value?: unknown }[];
      return { ...base, type: 'transform', config: { set: Object.fromEntries(vars.filter((v) => v.name).map((v) => [v.name!, v.value ?? null])) } };
    }
    case 'util:FunctionSleep':
      return { ...base, type: 'wait', config: { wait_type: 'timer', seconds: Math.min(300, Math.max(0, Number(mapper.duration ?? 1))) } };
    default:
      return unmappedNode('Make', key, name, m.module, []);
  }
}

/** `{{3.body.id}}` (module 3's output) becomes `{{<step of module 3>.output.body.id}}`. */
function translateMappings(built: ImportedDefinition): ImportedDefinition {
  const byKey = new Map(built.mapping.map((m) => [m.source_id, m.step_id]));
  const walkValue = (v: unknown): unknown =>
    typeof v === 'string'
      ? v.replace(/\{\{\s*(\d+)\.([^{}]+?)\s*\}\}/g, (whole, id: string, path: string) => (byKey.has(id) ? `{{${byKey.get(id)}.output.${path}}}` : whole))
      : Array.isArray(v) ? v.map(walkValue) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walkValue(x)])) : v;
  for (const step of built.steps) step.config = walkValue(step.config) as Record<string, unknown>;
  return built;
}
