import { ERRORS } from '../errors/catalogue.ts';

const MAX_DEPTH = 64;

/** The path of the first key or string holding U+0000 (depth-bounded; the body parser bounds size). */
function nulPath(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const child = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return child.replaceAll('\u0000', '\\u0000');
    const found = nulPath((value as Record<string, unknown>)[key], child, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * 422 when a request parameter (body, query or path; any key or string, at any depth) holds
 * the NUL character: PostgreSQL can store it in neither text nor jsonb, so it is refused at the
 * door, by name, rather than failing a write or being stored altered. `$req`/`$res` are skipped.
 */
export function assertNoNul(params: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(params)) {
    if (key === '$req' || key === '$res') continue;
    const field = key.includes('\u0000') ? key.replaceAll('\u0000', '\\u0000') : nulPath(value, key, 0);
    if (field) {
      const message = 'must not contain the NUL character (U+0000)';
      throw ERRORS.VALIDATION_FAILED(`'${field}' ${message}.`, [{ field, message, type: 'stringNul' }]);
    }
  }
}
