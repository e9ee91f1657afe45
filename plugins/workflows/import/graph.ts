import type { StepDefinition } from '../definitions/validate.ts';

/** One node of the source tool, as mapped: our step type and config, and its outgoing edges by output index. */
export interface MappedNode {
  /** the source tool's own key for the node (its id, or its name in n8n) */
  key: string;
  name: string;
  source_type: string;
  type: string;
  config: Record<string, unknown>;
  /** target keys per output of the node (output 0 first); a node with one output has one list */
  outputs: string[][];
  /** how branch targets go into the config, once every node has its step id */
  branches?: { kind: 'condition' } | { kind: 'switch'; cases: unknown[]; default_output?: number };
  /** true when the node had no equivalent and was imported as a pass-through note */
  unmapped?: boolean;
}

export interface ImportWarning {
  source: string;
  message: string;
}

export interface ImportedDefinition {
  name: string;
  description: string;
  steps: StepDefinition[];
  warnings: ImportWarning[];
  mapping: { source: string; source_id: string; source_type: string; step_id: string; type: string }[];
}

const ENTRY_TYPES = new Set(['trigger', 'webhook']);
const MAX_STEPS = 500;
const MAX_NEXT = 100;
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The http node's method for a source tool's method name (GET when it has no equivalent). */
export function httpMethod(raw: unknown): string {
  const method = typeof raw === 'string' ? raw.toUpperCase() : 'GET';
  return HTTP_METHODS.includes(method) ? method : 'GET';
}

/** A body the source tool kept as JSON text, parsed; anything else as it was. */
export function parseJsonText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** A step id from a node's name: `^[A-Za-z_][A-Za-z0-9_-]*$`, at most 64 characters, unique. */
export function stepIdFor(name: string, taken: Set<string>): string {
  let base = name.normalize('NFKD').replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase().slice(0, 56) || 'step';
  if (!/^[A-Za-z_]/.test(base)) base = `s_${base}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

/** A node with no equivalent here: a note that passes its input on, so the graph stays whole. */
export function unmappedNode(tool: string, key: string, name: string, sourceType: string, outputs: string[][]): MappedNode {
  return {
    key, name, source_type: sourceType, type: 'note', unmapped: true, outputs: [outputs.flat()],
    config: { text: `Imported from ${tool}: node '${name}' of type '${sourceType}' has no equivalent here and passes its input on. Replace it.` },
  };
}

/**
 * Our definition from the mapped nodes: step ids from names, `next` from the edges, branch
 * targets into condition and switch configs, and exactly one entry step (a manual `trigger` in
 * front of the roots when the source had none; extra entries become notes).
 */
export function buildDefinition(tool: string, name: string, description: string, nodes: MappedNode[], warnings: ImportWarning[]): ImportedDefinition {
  // the limits of a saved definition (DEFINITION_PARAMS), which an import does not pass through
  if (nodes.length > MAX_STEPS - 1) throw new Error(`it has ${nodes.length} nodes; a workflow holds at most ${MAX_STEPS - 1} imported steps`);
  for (const node of nodes) node.name = node.name.slice(0, 200);
  const taken = new Set<string>();
  const idOf = new Map<string, string>();
  for (const node of nodes) idOf.set(node.key, stepIdFor(node.name, taken));
  const targets = (keys: string[] | undefined) => (keys ?? []).map((k) => idOf.get(k)).filter((id): id is string => id !== undefined);

  // an entry node is where a run starts: one that other nodes lead to (a trigger in the middle) becomes a note
  const targeted = new Set(nodes.flatMap((n) => n.outputs.flat()));
  for (const node of nodes.filter((n) => ENTRY_TYPES.has(n.type) && targeted.has(n.key))) {
    warnings.push({ source: node.name, message: 'an entry node that other nodes lead to: it became a note that passes its input on' });
    Object.assign(node, { type: 'note', unmapped: true, config: { text: `Imported from ${tool}: '${node.name}' (${node.source_type}) started a flow in the middle of another.` } });
  }
  const entries = nodes.filter((n) => ENTRY_TYPES.has(n.type));
  for (const extra of entries.slice(1)) {
    warnings.push({ source: extra.name, message: `a second entry node: only '${entries[0].name}' starts the workflow here, this one became a note` });
    Object.assign(extra, { type: 'note', unmapped: true, config: { text: `Imported from ${tool}: '${extra.name}' was a second entry node (${extra.source_type}).` } });
  }

  const steps: StepDefinition[] = nodes.map((node) => {
    const next = [...new Set(node.outputs.flatMap((o) => targets(o)))];
    const config = { ...node.config };
    if (node.branches?.kind === 'condition') {
      config.branches = { ...(targets(node.outputs[0]).length ? { true: targets(node.outputs[0]) } : {}), ...(targets(node.outputs[1]).length ? { false: targets(node.outputs[1]) } : {}) };
    } else if (node.branches?.kind === 'switch') {
      const { cases, default_output } = node.branches;
      config.cases = cases.map((equals, i) => ({ equals, next: targets(node.outputs[i]) })).filter((c) => c.next.length > 0);
      if (default_output !== undefined && targets(node.outputs[default_output]).length) config.default = targets(node.outputs[default_output]);
      if ((config.cases as unknown[]).length === 0) {
        warnings.push({ source: node.name, message: 'a switch with no connected case: imported as a note' });
        return { id: idOf.get(node.key)!, type: 'note', name: node.name, config: { text: `Imported from ${tool}: switch '${node.name}' had no connected case.` }, next };
      }
    }
    return { id: idOf.get(node.key)!, type: node.type, name: node.name, config, next };
  });

  if (entries.length === 0) {
    const incoming = new Set(steps.flatMap((s) => s.next));
    const roots = steps.filter((s) => !incoming.has(s.id) && s.type !== 'note').map((s) => s.id);
    const start = stepIdFor('start', taken);
    steps.unshift({ id: start, type: 'trigger', name: 'Start', config: { description: `Imported from ${tool}; the source started with a trigger that has no equivalent here.` }, next: roots });
    warnings.push({ source: start, message: 'the source had no trigger this platform knows: a manual trigger was added in front' });
  }
  const crowded = steps.find((s) => s.next.length > MAX_NEXT);
  if (crowded) throw new Error(`node '${crowded.name}' leads to ${crowded.next.length} nodes; a step may lead to at most ${MAX_NEXT}`);
  const mapping = nodes.map((n) => ({ source: n.name, source_id: n.key, source_type: n.source_type, step_id: idOf.get(n.key)!, type: steps.find((s) => s.id === idOf.get(n.key))!.type }));
  for (const n of nodes.filter((x) => x.unmapped && !warnings.some((w) => w.source === x.name))) {
    warnings.push({ source: n.name, message: `node type '${n.source_type}' has no equivalent here: imported as a note that passes its input on` });
  }
  return { name: name.slice(0, 200), description, steps, warnings, mapping };
}
