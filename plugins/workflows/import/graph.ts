import type { StepDefinition } from '../definitions/validate.ts';
import { DEFINITION_PARAMS, STEP_PARAM } from '../schemas.ts';

/** Input that is not an export of the format named: the one importer error that is the client's (422); any other is a bug. */
export class ImportError extends Error {
  /** the part of the request at fault (default `data`) */
  constructor(message: string, readonly field = 'data') {
    super(message);
  }
}

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
  /** the step id, when the importer chose it (else one is made from the name) */
  id?: string;
  /** puts the step ids of each output's targets into the config (branching nodes the kinds above do not cover) */
  place?(config: Record<string, unknown>, targets: string[][]): void;
}

/** How one source node was carried over (the n8n importer's report). */
export interface ImportReportEntry {
  source: string;
  source_type: string;
  step_id: string;
  status: 'mapped' | 'approximated' | 'unmapped';
  /** what differs (approximated), why not (unmapped), or steps generated for it */
  notes: string[];
  /** where the node's (first output's) items are in a run, as a template value */
  items?: unknown;
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
  /** every source node, mapped / approximated / unmapped (n8n) */
  report?: ImportReportEntry[];
  /** credentials the source used: never imported, each an unset secret variable */
  credentials?: { source: string; credential_type: string; name: string; variable: string }[];
  variables?: Record<string, unknown>;
}

const ENTRY_TYPES = new Set(['trigger', 'webhook']);
const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const PLACEHOLDER_URL = 'https://example.invalid/';
/** the wait node's maximum */
const MAX_WAIT_SECONDS = 31536000;

/** The value when it is a string. */
export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The value when it is an array, else none. */
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The value when it is a (non-array) object, else an empty one. */
export function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** `table[key]` for an own key only: an export's `constructor` or `__proto__` finds nothing. */
export function own<T>(table: Record<string, T>, key: unknown): T | undefined {
  return typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A number, or a string holding one; NaN for anything else (String() of an export's object can throw). */
function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
}

const given = (value: unknown) => value !== undefined && value !== null && value !== '';

/** The workflow's name: the one asked for, else the source's own, else `Imported from <tool>`. */
export function titleOf(asked: string | undefined, sourceName: unknown, tool: string): string {
  return asked ?? (str(sourceName)?.trim() || `Imported from ${tool}`);
}

/** The http node's method for a source tool's method name (GET when it has no equivalent). */
export function httpMethod(raw: unknown): string {
  const method = typeof raw === 'string' ? raw.toUpperCase() : 'GET';
  return HTTP_METHODS.includes(method) ? method : 'GET';
}

/** A respond status: the source's when it is one (100-599), else 200, with a warning when the source set another. */
export function statusOr200(raw: unknown, source: string, warnings: ImportWarning[]): number {
  const status = numberOf(raw);
  if (Number.isInteger(status) && status >= 100 && status <= 599) return status;
  if (given(raw)) warnings.push({ source, message: 'a response status outside 100-599: 200 was used' });
  return 200;
}

/** A timer's seconds: `amount` units (1 when missing or not a number, with a warning when set), within 0..max. */
export function timerSeconds(amount: unknown, unitSeconds: number, source: string, warnings: ImportWarning[], max = MAX_WAIT_SECONDS): number {
  let n = numberOf(amount);
  if (!Number.isFinite(n)) {
    if (given(amount)) warnings.push({ source, message: 'a wait time that is not a number: 1 unit was used' });
    n = 1;
  }
  return Math.min(max, Math.max(0, n * unitSeconds));
}

/** An HTTP request's URL, or a placeholder (with a warning) when the source has none. */
export function urlOrPlaceholder(raw: unknown, source: string, warnings: ImportWarning[]): string {
  if (typeof raw === 'string' && raw) return raw;
  warnings.push({ source, message: `an HTTP request without a URL: it calls ${PLACEHOLDER_URL} until one is set` });
  return PLACEHOLDER_URL;
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

/** The value with `fn` applied to every string in it, however deep. */
export function mapStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)]));
  return value;
}

/**
 * A node's edges as target keys per output, from the source's outputs (a list of edge lists;
 * `null` for an unconnected output). Edges to unknown nodes are dropped; anything else that is
 * not an edge is dropped with a warning.
 */
export function outputsOf(raw: unknown, targetOf: (edge: unknown) => unknown, known: (key: string) => boolean, source: string, warnings: ImportWarning[]): string[][] {
  let malformed = given(raw) && !Array.isArray(raw);
  const outputs = list(raw).map((out) => {
    if (out !== null && !Array.isArray(out)) malformed = true;
    return list(out).flatMap((edge) => {
      const target = targetOf(edge);
      if (typeof target !== 'string') malformed = true;
      return typeof target === 'string' && known(target) ? [target] : [];
    });
  });
  if (malformed) warnings.push({ source, message: 'connections that are not lists of nodes were left out' });
  return outputs;
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
 * front of the roots when the source had none; extra entries become notes). Names are cut to
 * what a save takes; every other save rule is the caller's check.
 */
export function buildDefinition(tool: string, name: string, description: string, nodes: MappedNode[], warnings: ImportWarning[]): ImportedDefinition {
  for (const node of nodes) node.name = node.name.slice(0, STEP_PARAM.props.name.max);
  const taken = new Set<string>();
  const idOf = new Map<string, string>();
  for (const node of nodes) if (node.id) taken.add(node.id);
  for (const node of nodes) {
    if (idOf.has(node.key)) throw new ImportError(`more than one node is identified as '${node.key}'`);
    idOf.set(node.key, node.id ?? stepIdFor(node.name, taken));
  }
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
    if (node.place) node.place(config, node.outputs.map((o) => targets(o)));
    else if (node.branches?.kind === 'condition') {
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
  const typeOf = new Map(steps.map((s) => [s.id, s.type]));

  if (entries.length === 0) {
    const incoming = new Set(steps.flatMap((s) => s.next));
    const roots = steps.filter((s) => !incoming.has(s.id) && s.type !== 'note').map((s) => s.id);
    const start = stepIdFor('start', taken);
    steps.unshift({ id: start, type: 'trigger', name: 'Start', config: { description: `Imported from ${tool}; the source started with a trigger that has no equivalent here.` }, next: roots });
    warnings.push({ source: start, message: 'the source had no trigger this platform knows: a manual trigger was added in front' });
  }
  const mapping = nodes.map((n) => ({ source: n.name, source_id: n.key, source_type: n.source_type, step_id: idOf.get(n.key)!, type: typeOf.get(idOf.get(n.key)!)! }));
  const warned = new Set(warnings.map((w) => w.source));
  for (const n of nodes.filter((x) => x.unmapped && !warned.has(x.name))) {
    warnings.push({ source: n.name, message: `node type '${n.source_type}' has no equivalent here: imported as a note that passes its input on` });
  }
  return { name: name.slice(0, DEFINITION_PARAMS.name.max), description, steps, warnings, mapping };
}
