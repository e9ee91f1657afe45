import { ERRORS } from '../errors/catalogue.ts';

/** How a NUL inside a key is written in the field path (the path is shown, and must stay printable). */
const shown = (key: string) => key.replaceAll('\u0000', '\\u0000');

/** An object parsed from JSON or a query string (a stream or another class instance is not walked). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Children of a value to walk: [child, its key or index]. */
function childrenOf(value: unknown): [unknown, string | number][] {
  if (Array.isArray(value)) return value.map((v, i) => [v, i]);
  if (isPlainObject(value)) return Object.entries(value).map(([k, v]) => [v, k]);
  return [];
}

/**
 * Whether any key or string holds U+0000; no paths are built (this runs on every call).
 * Both walks use an explicit stack: the body parser bounds a body's size, not its depth, and
 * recursion over a deeply nested body would throw.
 */
function hasNul(params: Record<string, unknown>): boolean {
  const stack: unknown[] = [];
  for (const key of Object.keys(params)) {
    if (key === '$req' || key === '$res') continue;
    if (key.includes('\u0000')) return true;
    stack.push(params[key]);
  }
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (isPlainObject(value)) {
      for (const key of Object.keys(value)) {
        if (key.includes('\u0000')) return true;
        stack.push(value[key]);
      }
    }
  }
  return false;
}

/** The path of the first key or string holding U+0000 (only asked once hasNul said there is one). */
function nulPath(params: Record<string, unknown>): string | undefined {
  const stack: [unknown, string][] = [];
  for (const [key, value] of Object.entries(params)) if (key !== '$req' && key !== '$res') stack.push([value, key]);
  stack.reverse();
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (path.includes('\u0000')) return shown(path);
    if (typeof value === 'string' && value.includes('\u0000')) return path;
    const children = childrenOf(value);
    for (let i = children.length - 1; i >= 0; i--) {
      const [child, key] = children[i];
      stack.push([child, typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`]);
    }
  }
  return undefined;
}

/**
 * 422 when a request parameter (body, query or path; any key or string, at any depth) holds
 * the NUL character: PostgreSQL can store it in neither text nor jsonb, so it is refused at the
 * door, by name, rather than failing a write or being stored altered. `$req`/`$res` are skipped.
 */
export function assertNoNul(params: Record<string, unknown>): void {
  if (!hasNul(params)) return;
  const field = nulPath(params);
  if (field) {
    const message = 'must not contain the NUL character (U+0000)';
    throw ERRORS.VALIDATION_FAILED(`'${field}' ${message}.`, [{ field, message, type: 'stringNul' }]);
  }
}
