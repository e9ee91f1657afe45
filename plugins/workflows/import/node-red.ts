import {
  buildDefinition, httpMethod, ImportError, list, outputsOf, own, record, statusOr200, str, timerSeconds, titleOf, unmappedNode, urlOrPlaceholder,
  type ImportedDefinition, type ImportWarning, type MappedNode,
} from './graph.ts';

/**
 * A Node-RED flow export: an array of nodes `{id, type, z, name, wires: [[target ids], ...]}`
 * plus tabs (`type: "tab"`) and config nodes (no wires). One tab is imported: the one named by
 * `flow` (id or label), else the first that has nodes. `function` nodes hold JavaScript, which
 * is never imported (it would run unsandboxed); they become notes, with a warning.
 */
interface RedNode {
  id: string;
  type: string;
  z?: unknown;
  name?: unknown;
  label?: unknown;
  wires?: unknown;
  [key: string]: unknown;
}

const SECONDS: Record<string, number> = { milliseconds: 0.001, seconds: 1, minutes: 60, hours: 3600, days: 86400 };

export function importNodeRed(data: unknown, name: string | undefined, flow: string | undefined): ImportedDefinition {
  const nodeList = Array.isArray(data) ? data : record(data).flows;
  if (!Array.isArray(nodeList)) throw new ImportError('a Node-RED export is an array of nodes (or {flows: [...]})');
  const all = nodeList.filter((n): n is RedNode => typeof record(n).id === 'string' && typeof record(n).type === 'string');
  const tabs = all.filter((n) => n.type === 'tab');
  const wired = all.filter((n) => Array.isArray(n.wires));
  const tab = flow !== undefined ? tabs.find((t) => t.id === flow || t.label === flow) : tabs.find((t) => wired.some((n) => n.z === t.id));
  if (flow !== undefined && !tab) throw new ImportError(`no flow (tab) with id or label '${flow}' in the export`);
  const nodes = tab ? wired.filter((n) => n.z === tab.id) : wired;
  if (nodes.length === 0) throw new ImportError('the Node-RED export has no wired nodes');
  const warnings: ImportWarning[] = [];
  const others = tabs.filter((t) => t !== tab && wired.some((n) => n.z === t.id));
  if (others.length) warnings.push({ source: str(tab?.label) ?? tab?.id ?? '', message: `only this flow was imported; ${others.length} other flow(s) were left out (choose one with \`flow\`)` });
  const known = new Set(nodes.map((n) => n.id));
  const mapped = nodes.map((n) => {
    const label = str(n.name)?.trim() || `${n.type} ${n.id.slice(0, 6)}`;
    return mapNode(n, label, outputsOf(n.wires, (id) => id, (id) => known.has(id), label, warnings), warnings);
  });
  return buildDefinition('Node-RED', titleOf(name, tab?.label, 'Node-RED'), 'Imported from a Node-RED flow export.', mapped, warnings);
}

function mapNode(n: RedNode, name: string, outputs: string[][], warnings: ImportWarning[]): MappedNode {
  const base = { key: n.id, name, source_type: n.type, outputs: outputs.length ? outputs : [[]] };
  switch (n.type) {
    case 'inject':
      if (n.repeat || n.crontab) warnings.push({ source: name, message: 'a repeating inject: set the schedule on the binding (trigger type schedule)' });
      return { ...base, type: 'trigger', config: {} };
    case 'http in':
      return { ...base, type: 'webhook', config: {} };
    case 'http response':
      return { ...base, type: 'respond', config: { status: statusOr200(n.statusCode, name, warnings), body: '{{trigger.body}}' } };
    case 'http request':
      return { ...base, type: 'http', config: { method: httpMethod(n.method), url: urlOrPlaceholder(n.url, name, warnings) } };
    case 'change': {
      const rules = list(n.rules).map(record);
      const set = Object.fromEntries(rules.filter((r) => r.t === 'set' && typeof r.p === 'string' && r.p).map((r) => [(r.p as string).replace(/^payload\.?/, '') || 'payload', r.to ?? null]));
      if (rules.some((r) => r.t !== 'set')) warnings.push({ source: name, message: 'only the set rules of this change node were imported' });
      return { ...base, type: 'transform', config: { set } };
    }
    case 'switch': {
      const rules = list(n.rules).map(record);
      if (!rules.length || rules.some((r) => r.t !== 'eq' && r.t !== 'else')) {
        warnings.push({ source: name, message: 'a switch with rules other than == and otherwise: imported as a note' });
        return unmappedNode('Node-RED', n.id, name, n.type, outputs);
      }
      const elseAt = rules.findIndex((r) => r.t === 'else');
      const cases = rules.filter((r) => r.t === 'eq').map((r) => r.v ?? null);
      const caseOutputs = rules.map((_, i) => outputs[i] ?? []).filter((_, i) => i !== elseAt);
      const property = str(n.property)?.replace(/^payload\.?/, '');
      return {
        ...base, outputs: [...caseOutputs, ...(elseAt >= 0 ? [outputs[elseAt] ?? []] : [])], type: 'switch',
        config: { value: property ? `{{trigger.body.${property}}}` : '{{trigger.body}}' },
        branches: { kind: 'switch', cases, default_output: elseAt >= 0 ? cases.length : undefined },
      };
    }
    case 'delay':
      return { ...base, type: 'wait', config: { wait_type: 'timer', seconds: timerSeconds(n.timeout, own(SECONDS, n.timeoutUnits ?? 'seconds') ?? 1, name, warnings) } };
    case 'join':
      return { ...base, type: 'merge', config: {} };
    case 'comment':
      return { ...base, type: 'note', config: { text: (str(n.info) || name).slice(0, 20000) }, outputs: [[]] };
    case 'function':
      warnings.push({ source: name, message: 'a function node: its JavaScript was not imported (it would run unsandboxed); the note passes its input on' });
      return unmappedNode('Node-RED', n.id, name, n.type, outputs);
    default:
      return unmappedNode('Node-RED', n.id, name, n.type, outputs);
  }
}
