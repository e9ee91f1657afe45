import { ERRORS } from '../errors/catalogue.ts';
import { isPlainObject } from '../plain-object.ts';

/**
 * How deep request parameters may nest. The body parser bounds a body's size, not its depth,
 * and code that walks a value recursively (validators, structuredClone, JSON.stringify) throws
 * a RangeError on one nested some thousands of levels: a 500 for a bad input. Real payloads
 * (workflow definitions, imports, webhook bodies) stay far below this.
 */
export const MAX_PARAM_DEPTH = 100;

const NUL = '\u0000';

/** How a NUL inside a key is written in the field path (the path is shown, and must stay printable). */
const shown = (key: string) => key.replaceAll(NUL, '\\u0000');

/** The top-level parameters to walk: `$req`/`$res` (the request itself, for some actions) are not. */
function topLevel(params: Record<string, unknown>): [string, unknown][] {
  return Object.entries(params).filter(([key]) => key !== '$req' && key !== '$res');
}

/**
 * Whether any key or string holds U+0000 or a value nests deeper than MAX_PARAM_DEPTH; no paths
 * are built (this runs on every call). Both walks use an explicit stack, never recursion.
 */
function hasProblem(params: Record<string, unknown>): boolean {
  const values: unknown[] = [];
  const depths: number[] = [];
  for (const [key, value] of topLevel(params)) {
    if (key.includes(NUL)) return true;
    values.push(value);
    depths.push(1);
  }
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) return true;
      continue;
    }
    const isArray = Array.isArray(value);
    if (!isArray && !isPlainObject(value)) continue;
    if (depth > MAX_PARAM_DEPTH) return true;
    if (isArray) for (const item of value) (values.push(item), depths.push(depth + 1));
    else {
      for (const key of Object.keys(value)) {
        if (key.includes(NUL)) return true;
        values.push(value[key]);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The first problem, by field path (only asked once hasProblem said there is one). */
function firstProblem(params: Record<string, unknown>): { field: string; message: string; type: string } | undefined {
  const stack: [unknown, string, number][] = topLevel(params).map(([key, value]) => [value, key, 1]);
  stack.reverse();
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop()!;
    if (path.includes(NUL) || (typeof value === 'string' && value.includes(NUL))) return { field: shown(path), message: 'must not contain the NUL character (U+0000)', type: 'stringNul' };
    const children: [unknown, string][] = Array.isArray(value) ? value.map((v, i) => [v, `${path}[${i}]`]) : isPlainObject(value) ? Object.entries(value).map(([k, v]) => [v, `${path}.${k}`]) : [];
    if (children.length > 0 && depth > MAX_PARAM_DEPTH) return { field: shown(path), message: `is nested more than ${MAX_PARAM_DEPTH} levels deep`, type: 'tooDeep' };
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i][0], children[i][1], depth + 1]);
  }
  return undefined;
}

/**
 * 422 when a request parameter (body, query or path; any key or string, at any depth) holds the
 * NUL character, which PostgreSQL can store in neither text nor jsonb (refused at the door, by
 * name, rather than failing a write or being stored altered), or nests deeper than
 * MAX_PARAM_DEPTH.
 */
export function assertStorableParams(params: Record<string, unknown>): void {
  if (!hasProblem(params)) return;
  const problem = firstProblem(params) ?? { field: '(body)', message: 'is not storable', type: 'invalid' };
  throw ERRORS.VALIDATION_FAILED(`'${problem.field}' ${problem.message}.`, [problem]);
}
