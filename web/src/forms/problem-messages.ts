import type { OutputUnit } from '@cfworker/json-schema';
import { TEMPLATE_MARK, WRAPPER_MARK, type JsonSchema } from './template-schema';

/** One problem of a value against a config schema: where (RFC 6901 pointer into the config) and what. */
export interface ConfigProblem {
  pointer: string;
  message: string;
}

/** keywords whose error only says a subschema failed (the subschema's own error says why) */
const AGGREGATE = new Set(['properties', 'items', 'additionalProperties', 'allOf', 'if', 'then', 'else', '$ref', 'unevaluatedProperties', 'prefixItems']);

function decode(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

function segmentsOf(location: string): string[] {
  const path = location.replace(/^#/, '');
  return path ? path.split('/').slice(1).map(decode) : [];
}

/** The schema nodes a keyword location walks through, outermost first. */
function walk(root: unknown, segments: string[]): unknown[] {
  const nodes: unknown[] = [root];
  let node: unknown = root;
  for (const s of segments) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[s] : undefined;
    nodes.push(node);
  }
  return nodes;
}

const marked = (node: unknown, mark: string): boolean => Boolean(node && typeof node === 'object' && (node as JsonSchema)[mark]);

/**
 * Keeps the errors the server would report, worded as the server words them: not the
 * template wrapper's, not the template branch's, not a failed branch's inside a non-wrapper
 * anyOf/oneOf (the server says only that no form matched), not the aggregate ones.
 */
export function problemsOf(errors: OutputUnit[], schema: unknown, value: unknown): ConfigProblem[] {
  const out: (ConfigProblem & { keyword: string })[] = [];
  for (const e of errors) {
    const segments = segmentsOf(e.keywordLocation);
    const nodes = walk(schema, segments);
    const last = segments.length - 1;
    const inTemplate = nodes.some((n) => marked(n, TEMPLATE_MARK));
    const wrapperError = e.keyword === 'anyOf' && marked(nodes[last], WRAPPER_MARK);
    const insideAlternative = segments.some((s, i) => (s === 'anyOf' || s === 'oneOf') && i < last - 1 && !marked(nodes[i], WRAPPER_MARK));
    if (inTemplate || wrapperError || insideAlternative || AGGREGATE.has(e.keyword)) continue;
    // nodes[last] holds the keyword; the node after it is the keyword's value (`100` of `minimum: 100`)
    out.push({ ...describe(e, nodes[last + 1], value), keyword: e.keyword });
  }
  // the server stops at a value of the wrong type: nothing else is said about it
  const wrongType = new Set(out.filter((p) => p.keyword === 'type').map((p) => p.pointer));
  return dedupe(out.filter((p) => p.keyword === 'type' || !wrongType.has(p.pointer)).map(({ pointer, message }) => ({ pointer, message })));
}

function valueAt(value: unknown, pointer: string): unknown {
  return segmentsOf(`#${pointer}`).reduce<unknown>((v, s) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined), value);
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function describe(e: OutputUnit, keywordValue: unknown, root: unknown): ConfigProblem {
  const pointer = e.instanceLocation.replace(/^#/, '');
  const value = valueAt(root, pointer);
  const parent = keywordValue;
  switch (e.keyword) {
    case 'type': {
      const types = Array.isArray(parent) ? parent : [parent].flat();
      return { pointer, message: `must be ${types.join(' or ')}, got ${typeOf(value)}` };
    }
    case 'required': {
      const missing = /"([^"]+)"/.exec(e.error)?.[1] ?? '';
      return { pointer: `${pointer}/${missing.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: 'is required' };
    }
    case 'false':
      return { pointer, message: 'is not a known setting' };
    case 'enum':
      return { pointer, message: `must be one of ${(Array.isArray(parent) ? parent : []).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { pointer, message: `must be ${JSON.stringify(parent)}` };
    case 'minLength': return { pointer, message: `must be at least ${String(parent)} characters long` };
    case 'maxLength': return { pointer, message: `must be at most ${String(parent)} characters long` };
    case 'pattern': return { pointer, message: `must match ${String(parent)}` };
    case 'minimum': return { pointer, message: `must be >= ${String(parent)}` };
    case 'maximum': return { pointer, message: `must be <= ${String(parent)}` };
    case 'exclusiveMinimum': return { pointer, message: `must be > ${String(parent)}` };
    case 'exclusiveMaximum': return { pointer, message: `must be < ${String(parent)}` };
    case 'minItems': return { pointer, message: `must have at least ${String(parent)} items` };
    case 'maxItems': return { pointer, message: `must have at most ${String(parent)} items` };
    case 'anyOf': return { pointer, message: 'matches none of the allowed forms' };
    case 'oneOf': return { pointer, message: /more than one|multiple/i.test(e.error) ? 'matches more than one allowed form' : 'matches none of the allowed forms' };
    default: return { pointer, message: e.error };
  }
}

function dedupe(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.pointer}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
