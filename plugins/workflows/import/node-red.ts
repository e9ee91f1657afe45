import { buildDefinition, httpMethod, unmappedNode, type ImportedDefinition, type ImportWarning, type MappedNode } from './graph.ts';

/**
 * A Node-RED flow export: an array of nodes `{id, type, z, name, wires: [[target ids], ...]}`
 * plus tabs (`type: "tab"`) and config nodes (no wires). One tab is imported: the one named by
 * `flow` (id or label), else the first that has nodes. `function` nodes hold JavaScript, which
 * is never imported (it would run unsandboxed); they become notes, with a warning.
 */
interface RedNode {
  id: string;
  type: string;
  z?: string;
  name?: string;
  label?: string;
  wires?: string[][];
  [key: string]: unknown;
}

const SECONDS: Record<string, number> = { milliseconds: 0.001, seconds: 1, minutes: 60, hours: 3600, days: 86400 };

export function importNodeRed(data: unknown, name: string | undefined, flow: string | undefined): ImportedDefinition {
  const list = Array.isArray(data) ? data : (data as { flows?: unknown })?.flows;
  if (!Array.isArray(list)) throw new Error('a Node-RED export is an array of nodes (or {flows: [...]})');
  const all = (list as RedNode[]).filter((n) => n && typeof n.id === 'string' && typeof n.type === 'string');
  const tabs = all.filter((n) => n.type === 'tab');
  const wired = all.filter((n) => Array.isArray(n.wires));
  const tab = flow !== undefined ? tabs.find((t) => t.id === flow || t.label === flow) : tabs.find((t) => wired.some((n) => n.z === t.id));
  if (flow !== undefined && !tab) throw new Error(`no flow (tab) with id or label '${flow}' in the export`);
  const nodes = tab ? wired.filter((n) => n.z === tab.id) : wired;
  if (nodes.length === 0) throw new Error('the Node-RED export has no wired nodes');
  const warnings: ImportWarning[] = [];
  const others = tabs.filter((t) => t !== tab && wired.some((n) => n.z === t.id));
  if (others.length) warnings.push({ source: String(tab?.label ?? tab?.id), message: `only this flow was imported; ${others.length} other flow(s) were left out (choose one with \`flow\`)` });
  const known = new Set(nodes.map((n) => n.id));
  const mapped = nodes.map((n) => mapNode(n, (n.wires ?? []).map((out) => (out ?? []).filter((id) => known.has(id))), warnings));
  const title = name ?? (typeof tab?.label === 'string' && tab.label.trim() ? tab.label.trim() : 'Imported from Node-RED');
  return buildDefinition('Node-RED', title, 'Imported from a Node-RED flow export.', mapped, warnings);
}

function mapNode(n: RedNode, outputs: string[][], warnings: ImportWarning[]): MappedNode {
  const name = typeof n.name === 'string' && n.name.trim() ? n.name.trim() : `${n.type} ${n.id.slice(0, 6)}`;
  const base = { key: n.id, name, source_type: n.type, outputs: outputs.length ? outputs : [[]] };
  switch (n.type) {
    case 'inject':
      if (n.repeat || n.crontab) warnings.push({ source: name, message: 'a repeating inject: set the schedule on the binding (trigger type schedule)' });
      return { ...base, type: 'trigger', config: {} };
    case 'http in':
      return { ...base, type: 'webhook', config: {} };
    case 'http response': {
      const status = Number(n.statusCode);
      return { ...base, type: 'respond', config: { status: Number.isInteger(status) && status >= 100 && status <= 599 ? status : 200, body: '{{trigger.body}}' } };
    }
    case 'http request': {
      return { ...base, type: 'http', config: { method: httpMethod(n.method), url: typeof n.url === 'string' && n.url ? n.url : 'https://example.invalid/' } };
    }
    case 'change': {
      const rules = (Array.isArray(n.rules) ? n.rules : []) as { t?: string; p?: string; to?: unknown }[];
      const set = Object.fromEntries(rules.filter((r) => r.t === 'set' && r.p).map((r) => [r.p!.replace(/^payload\.?/, '') || 'payload', r.to ?? null]));
      if (rules.some((r) => r.t !== 'set')) warnings.push({ source: name, message: 'only the set rules of this change node were imported' });
      return { ...base, type: 'transform', config: { set } };
    }
    case 'switch': {
      const rules = (Array.isArray(n.rules) ? n.rules : []) as { t?: string; v?: unknown }[];
      if (!rules.length || rules.some((r) => r.t !== 'eq' && r.t !== 'else')) {
        warnings.push({ source: name, message: 'a switch with rules other than == and otherwise: imported as a note' });
        return unmappedNode('Node-RED', n.id, name, n.type, outputs);
      }
      const elseAt = rules.findIndex((r) => r.t === 'else');
      const cases = rules.filter((r) => r.t === 'eq').map((r) => r.v ?? null);
      const caseOutputs = rules.map((_, i) => outputs[i] ?? []).filter((_, i) => i !== elseAt);
      const property = typeof n.property === 'string' ? n.property.replace(/^payload\.?/, '') : '';
      return {
        ...base, outputs: [...caseOutputs, ...(elseAt >= 0 ? [outputs[elseAt] ?? []] : [])], type: 'switch',
        config: { value: property ? `{{trigger.body.${property}}}` : '{{trigger.body}}' },
        branches: { kind: 'switch', cases, default_output: elseAt >= 0 ? cases.length : undefined },
      };
    }
    case 'delay': {
      const seconds = Number(n.timeout ?? 1) * (SECONDS[String(n.timeoutUnits ?? 'seconds')] ?? 1);
      return { ...base, type: 'wait', config: { wait_type: 'timer', seconds: Math.min(31536000, Math.max(0, seconds)) } };
    }
    case 'join':
      return { ...base, type: 'merge', config: {} };
    case 'comment':
      return { ...base, type: 'note', config: { text: String(n.info ?? name).slice(0, 20000) }, outputs: [[]] };
    case 'function':
      warnings.push({ source: name, message: 'a function node: its JavaScript was not imported (it would run unsandboxed); the note passes its input on' });
      return unmappedNode('Node-RED', n.id, name, n.type, outputs);
    default:
      return unmappedNode('Node-RED', n.id, name, n.type, outputs);
  }
}
