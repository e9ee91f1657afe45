import {
  buildDefinition, ImportError, record, stepIdFor, str, titleOf, unmappedNode,
  type ImportedDefinition, type ImportReportEntry, type ImportWarning, type MappedNode,
} from './graph.ts';
import type { DialectInput, N8nNode, NodeCtx, NodeMapping } from './n8n/context.ts';
import { readEdges, type Edge } from './n8n/edges.ts';
import * as data from './n8n/map-data.ts';
import * as flow from './n8n/map-flow.ts';
import { merge } from './n8n/map-merge.ts';
import { switchNode } from './n8n/map-switch.ts';
import { ExpressionTranslator, itemsValue, type ItemsRef } from './n8n/translate.ts';
import { unmappedReason } from './n8n/unmapped.ts';
import { applySettings } from './n8n/settings.ts';

/**
 * n8n's workflow export (`{name, nodes, connections, settings?, pinData?}`) as a definition
 * that runs the same: per-item nodes run once per item (`each`), IF / Switch / Filter route
 * items (item mode), expressions become templates or a generated `code` step (n8n dialect).
 * The report lists every source node as mapped, approximated (what differs) or unmapped (why:
 * it becomes a note passing its input on); credentials become unset secret variables.
 */
export const MAX_N8N_NODES = 500;

const MAPPERS: Record<string, (ctx: NodeCtx) => NodeMapping> = {
  manualTrigger: flow.manualTrigger, start: flow.manualTrigger, scheduleTrigger: flow.scheduleTrigger, cron: flow.scheduleTrigger, webhook: flow.webhook,
  if: flow.ifNode, switch: switchNode, merge, splitInBatches: flow.loop, wait: flow.wait, respondToWebhook: flow.respond, noOp: flow.noOp,
  stickyNote: flow.stickyNote, stopAndError: flow.stopAndError, httpRequest: data.http, set: data.set, code: data.code, filter: data.filter, sort: data.sort,
  limit: data.limit, removeDuplicates: data.removeDuplicates, aggregate: data.aggregate, dateTime: data.dateTime,
};
const ENTRY_TYPES = new Set(['manualTrigger', 'start', 'scheduleTrigger', 'cron', 'webhook']);
const START = '\u0000start';

const shortOf = (type: string) => type.replace(/^n8n-nodes-base\./, '');
const slug = (text: string) => text.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase().slice(0, 48) || 'credential';

/** The nodes of a well-formed export, by name (names are n8n's node keys). */
function readNodes(doc: Record<string, unknown>): N8nNode[] {
  if (!Array.isArray(doc.nodes)) throw new ImportError('an n8n export has a `nodes` array', 'data.nodes');
  if (doc.nodes.length > MAX_N8N_NODES) throw new ImportError(`the export has ${doc.nodes.length} nodes; a workflow holds at most ${MAX_N8N_NODES}`, 'data.nodes');
  const nodes = doc.nodes.filter((n): n is N8nNode => typeof record(n).name === 'string' && typeof record(n).type === 'string');
  if (nodes.length === 0) throw new ImportError('the n8n export has no nodes', 'data.nodes');
  const seen = new Set<string>();
  for (const n of nodes) {
    if (seen.has(n.name)) throw new ImportError(`more than one node is named '${n.name}'`, 'data.nodes');
    seen.add(n.name);
  }
  return nodes;
}

export function importN8n(input: unknown, name: string | undefined): ImportedDefinition {
  const doc = record(input);
  const nodes = readNodes(doc);
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const warnings: ImportWarning[] = [];
  const { outEdges, inEdges } = readEdges(doc.connections, (n) => byName.has(n), warnings);
  const zone = str(record(doc.settings).timezone) || 'UTC';
  const title = titleOf(name, doc.name, 'n8n');
  const taken = new Set<string>();
  const idOf = new Map(nodes.map((n) => [n.name, stepIdFor(n.name, taken)]));
  const hasEntry = nodes.some((n) => ENTRY_TYPES.has(shortOf(n.type)) && !n.disabled);
  const startId = hasEntry ? undefined : stepIdFor('start', taken);

  // credentials: never imported, each an unset secret variable
  const credentials: NonNullable<ImportedDefinition['credentials']> = [];
  const variables: Record<string, unknown> = {};
  const credentialVars = new Map<string, Record<string, string>>();
  for (const node of nodes) {
    const vars: Record<string, string> = {};
    for (const [type, ref] of Object.entries(record(node.credentials))) {
      const label = str(record(ref).name) ?? type;
      const variable = `n8n_credential_${slug(label)}`;
      vars[type] = variable;
      if (!(variable in variables)) variables[variable] = '';
      credentials.push({ source: node.name, credential_type: type, name: label, variable });
    }
    credentialVars.set(node.name, vars);
  }

  // a loop's body: what its output 1 reaches without passing through it
  const loopBody = (loop: string): Set<string> => {
    const body = new Set<string>();
    const walk = (n: string) => {
      if (n === loop || body.has(n)) return;
      body.add(n);
      for (const e of outEdges.get(n) ?? []) walk(e.to);
    };
    for (const e of outEdges.get(loop) ?? []) if (e.output === 1) walk(e.to);
    return body;
  };
  const incoming = (n: string): Edge[] => {
    const edges = inEdges.get(n) ?? [];
    if (shortOf(byName.get(n)!.type) !== 'splitInBatches') return edges;
    const body = loopBody(n);
    return edges.filter((e) => !body.has(e.from));
  };

  // $runIndex of a node in a Loop Over Items body: the loop's iteration (n8n runs the body's nodes once per batch)
  const loopOf = new Map<string, string>();
  for (const loop of nodes.filter((x) => shortOf(x.type) === 'splitInBatches' && !x.disabled)) for (const n of loopBody(loop.name)) if (!loopOf.has(n)) loopOf.set(n, loop.name);
  const dialectOf = (n: string): DialectInput => ({ zone, workflow: { name: title }, ...(loopOf.has(n) ? { run_index: `{{${idOf.get(loopOf.get(n)!)}.output.iteration}}` } : {}) });

  const mappings = new Map<string, NodeMapping>();
  /** an error output whose edges are left out, by node */
  const dropped = new Map<string, number | undefined>();
  const translators = new Map<string, ExpressionTranslator>();
  const codeIds = new Map<string, string>();
  const visiting = new Set<string>();
  const itemsAt = (n: string, output: number): ItemsRef | undefined => (n === START ? { path: `${startId}.output`, single: true } : mappingOf(n)?.items(output));
  const inputOf = (n: string): ItemsRef | undefined => {
    const e = incoming(n)[0];
    if (e) return itemsAt(e.from, e.output);
    return startId && !(inEdges.get(n)?.length) ? { path: `${startId}.output`, single: true } : undefined;
  };

  function mappingOf(n: string): NodeMapping | undefined {
    const known = mappings.get(n);
    if (known || visiting.has(n)) return known;
    visiting.add(n);
    const node = byName.get(n)!;
    const id = idOf.get(n)!;
    const input = inputOf(n);
    const short = shortOf(node.type);
    const ctx: NodeCtx = {
      node, short, id, input, zone, dialect: dialectOf(n),
      version: typeof node.typeVersion === 'number' ? node.typeVersion : 1,
      p: record(node.parameters),
      inputs: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => {
        const e = (inEdges.get(n) ?? []).find((x) => x.input === i);
        return e ? itemsAt(e.from, e.output) : undefined;
      }).filter((ref, i) => i < 2 || ref !== undefined),
      credentials: credentialVars.get(n) ?? {},
      nodeItems: (other) => (byName.has(other) ? itemsAt(other, 0) : undefined),
      translator(mode) {
        let tr = translators.get(n);
        if (!tr) {
          const computed = (key: string) => {
            if (!codeIds.has(n)) codeIds.set(n, stepIdFor(`${id}_expressions`, taken));
            return mode === 'item' ? `${codeIds.get(n)}.output[$index].${key}` : `${codeIds.get(n)}.output[0].${key}`;
          };
          tr = new ExpressionTranslator({ mode, input, nodeItems: ctx.nodeItems, computed, zone });
          translators.set(n, tr);
        }
        return tr;
      },
    };
    const passOn = () => input;
    let m: NodeMapping;
    if (node.disabled === true) m = { ...flow.noOp(ctx), approx: ['disabled in n8n: passes its items on'] };
    else if (MAPPERS[short] && node.type.startsWith('n8n-nodes-base.')) m = MAPPERS[short](ctx);
    else m = { type: 'note', config: {}, items: passOn, approx: [], problems: [unmappedReason(node.type)] };
    m.approx.push(...(translators.get(n)?.approx ?? []));
    const sources = incoming(n);
    if (short !== 'merge' && new Set(sources.map((e) => `${e.from}\u0000${e.output}`)).size > 1 && m.config.each !== undefined) {
      m.approx.push(`reached from several nodes: it runs once, for the items of '${sources[0].from}' (n8n runs it once per incoming branch)`);
    }
    if (m.problems.length) m.items = passOn;
    else dropped.set(n, applySettings(node as N8nNode & Record<string, unknown>, short, m).dropOutput);
    mappings.set(n, m);
    visiting.delete(n);
    return m;
  }
  for (const node of nodes) mappingOf(node.name);

  // the generated code step of a node's computing expressions sits between its parents and it
  const codeKey = (n: string) => `${n}\u0000expressions`;
  const into = (target: string) => (codeIds.has(target) && !mappings.get(target)!.problems.length ? codeKey(target) : target);
  const mapped: MappedNode[] = [];
  if (startId) {
    const roots = nodes.filter((n) => !(inEdges.get(n.name)?.length) && mappings.get(n.name)?.type !== 'note').map((n) => into(n.name));
    mapped.push({ key: START, id: startId, name: 'Start', source_type: 'n8n', type: 'trigger', config: { description: 'Added by the n8n import: the source had no trigger.' }, outputs: [roots] });
    warnings.push({ source: 'Start', message: 'the source had no trigger this platform knows: a manual trigger was added in front' });
  }
  const report: ImportReportEntry[] = [];
  for (const node of nodes) {
    const m = mappings.get(node.name)!;
    const id = idOf.get(node.name)!;
    const outputs: string[][] = [];
    for (const e of outEdges.get(node.name) ?? []) if (e.output !== dropped.get(node.name)) (outputs[e.output] ??= []).push(into(e.to));
    for (let i = 0; i < outputs.length; i++) outputs[i] ??= [];
    const notes = m.problems.length ? m.problems : [...new Set(m.approx)];
    const tr = translators.get(node.name);
    if (!m.problems.length && tr?.computing.length) {
      const codeId = codeIds.get(node.name)!;
      // values a node reads per item (a condition's operands) come from a code step run once per item
      if (tr.perItem) m.config.operands = `{{${codeId}.output}}`;
      mapped.push(generatedCode(codeKey(node.name), codeId, node, tr, tr.perItem ? 'item' : translatorMode(m), inputOf(node.name), (other) => (byName.has(other) ? itemsAt(other, 0) : undefined), dialectOf(node.name)));
      notes.push(`computing expressions moved to the generated code step '${codeId}' (n8n dialect): ${tr.computing.map((c) => `{{ ${(c.shown ?? c.source).slice(0, 120)} }}`).join(', ')}`);
    }
    if (m.problems.length) mapped.push({ ...unmappedNode('n8n', node.name, node.name, node.type, outputs), id });
    else mapped.push({ key: node.name, id, name: node.name, source_type: node.type, type: m.type, config: m.config, outputs: m.detached ? [[]] : outputs.length ? outputs : [[]], place: m.place });
    const status = m.problems.length ? 'unmapped' : m.approx.length ? 'approximated' : 'mapped';
    const items = m.items(0);
    report.push({ source: node.name, source_type: node.type, step_id: id, status, notes, ...(items && !m.detached ? { items: itemsValue(items) } : {}) });
    if (status !== 'mapped') warnings.push({ source: node.name, message: `${status}: ${notes.join('; ')}` });
  }
  if (doc.pinData && typeof doc.pinData === 'object') warnings.push({ source: 'pinData', message: 'pinned data is not imported' });
  const built = buildDefinition('n8n', title, 'Imported from an n8n workflow export.', mapped, warnings);
  return { ...built, report, credentials, variables };
}

function translatorMode(m: NodeMapping): 'item' | 'first' {
  return m.config.each !== undefined ? 'item' : 'first';
}

/** The code step computing a node's computing expressions: once per item (item mode) or once (first item). */
function generatedCode(key: string, id: string, node: N8nNode, tr: ExpressionTranslator, mode: 'item' | 'first', input: ItemsRef | undefined, nodeItems: (name: string) => ItemsRef | undefined, dialect: DialectInput): MappedNode {
  const items = itemsValue(input);
  const nodes = Object.fromEntries(tr.computing.flatMap((c) => c.nodes).map((n) => [n, itemsValue(nodeItems(n))]));
  const values = tr.computing.map((c) => `${c.key}: (${c.source})`).join(', ');
  const config =
    mode === 'item'
      ? { each: items, dialect: 'n8n', code: `return { ${values} };`, input: { mode: 'each', item: '{{item}}', index: '{{item_index}}', origin: '{{item_origin}}', items, nodes, ...dialect } }
      : { dialect: 'n8n', code: `return [{ ${values} }];`, input: { mode: 'all', items, nodes, ...dialect } };
  return { key, id, name: `${node.name} (expressions)`.slice(0, 200), source_type: node.type, type: 'code', config, outputs: [[node.name]] };
}
