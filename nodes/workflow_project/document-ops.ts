import { parseFieldPath } from '../../kernel/nodes/item-path.ts';
import { NodeStepError } from '../../kernel/nodes/step-error.ts';

/** What one `workflow_project` step does to the document. */
export type ProjectOperation =
  | { operation: 'get'; path: string }
  | { operation: 'set'; path: string; value: unknown }
  | { operation: 'merge'; path: string; value: Record<string, unknown> }
  | { operation: 'increment'; path: string; by: number };

export type JsonObject = Record<string, unknown>;

/** Keys that would reach an object's prototype instead of a field. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The path's keys, refusing prototype keys (a document is data, never an object graph to climb). */
export function pathKeys(path: string): string[] {
  const keys = parseFieldPath(path);
  const bad = keys.find((k) => FORBIDDEN_KEYS.has(k));
  if (bad) throw new NodeStepError(`config.path may not name '${bad}'.`, 'BAD_CONFIG');
  return keys;
}

/** The value at `keys` (own properties only), or undefined. */
export function readAt(doc: unknown, keys: string[]): unknown {
  let current = doc;
  for (const key of keys) {
    if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as JsonObject)[key];
  }
  return current;
}

/** A copy of `doc` with `value` at `keys`; missing containers become objects; a scalar on the way is an error. */
function writeAt(doc: unknown, keys: string[], value: unknown, path: string): unknown {
  if (keys.length === 0) return value;
  const [key, ...rest] = keys;
  if (Array.isArray(doc)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index > doc.length) throw new NodeStepError(`'${path}': '${key}' is not an index of the list there (length ${doc.length}).`, 'BAD_INPUT');
    const copy = [...doc];
    copy[index] = writeAt(doc[index], rest, value, path);
    return copy;
  }
  if (doc !== undefined && doc !== null && !isObject(doc)) throw new NodeStepError(`'${path}': the document holds a ${typeof doc} where an object is needed.`, 'BAD_INPUT');
  const base: JsonObject = isObject(doc) ? doc : {};
  const existing = Object.prototype.hasOwnProperty.call(base, key) ? base[key] : undefined;
  return { ...base, [key]: writeAt(existing, rest, value, path) };
}

/** Objects merged key by key, recursively; anything else in `patch` replaces what was there. */
export function deepMerge(target: unknown, patch: JsonObject): JsonObject {
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (FORBIDDEN_KEYS.has(k)) throw new NodeStepError(`config.value may not hold the key '${k}'.`, 'BAD_CONFIG');
    out[k] = isObject(v) ? deepMerge(out[k], v) : v;
  }
  return out;
}

/**
 * Applies one operation: answers the new document (unchanged for `get`) and the value at the
 * path afterwards. The root stays an object.
 */
export function applyOperation(doc: JsonObject, op: ProjectOperation): { document: JsonObject; value: unknown } {
  const keys = pathKeys(op.path);
  let next: unknown = doc;
  if (op.operation === 'set') next = writeAt(doc, keys, op.value, op.path);
  else if (op.operation === 'merge') {
    const current = readAt(doc, keys);
    if (current !== undefined && current !== null && !isObject(current)) throw new NodeStepError(`'${op.path || '(document)'}' holds a ${Array.isArray(current) ? 'list' : typeof current}; merge needs an object there.`, 'BAD_INPUT');
    next = writeAt(doc, keys, deepMerge(current, op.value), op.path);
  } else if (op.operation === 'increment') {
    if (keys.length === 0) throw new NodeStepError('increment needs config.path naming a number in the document.', 'BAD_CONFIG');
    const current = readAt(doc, keys) ?? 0;
    if (typeof current !== 'number') throw new NodeStepError(`'${op.path}' holds a ${Array.isArray(current) ? 'list' : typeof current}, not a number: it cannot be incremented.`, 'BAD_INPUT');
    const sum = current + op.by;
    if (!Number.isFinite(sum)) throw new NodeStepError(`'${op.path}' would overflow.`, 'BAD_INPUT');
    next = writeAt(doc, keys, sum, op.path);
  }
  if (!isObject(next)) throw new NodeStepError('The document must stay a JSON object: set a whole document only to an object.', 'BAD_INPUT');
  return { document: next, value: readAt(next, keys) ?? null };
}
