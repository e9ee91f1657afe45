/**
 * A small JSON Schema validator for node-type config schemas (the keywords node types use:
 * type, enum, const, properties, required, additionalProperties, items, min/max(Length|Items),
 * minimum/maximum/exclusive*, pattern, oneOf, anyOf, allOf, if/then/else, default, description,
 * title). `unsupportedKeywords` lists anything else, so a node type using another keyword is
 * refused when it loads instead of being checked loosely.
 *
 * Templates: a string that is one whole template ("{{...}}") is accepted wherever a value is
 * expected, since its type is known only when the engine resolves it at run time.
 */
export type Schema = { [keyword: string]: unknown };

export interface SchemaProblem {
  path: string;
  message: string;
  /** RFC 6901 pointer to the value, relative to the value validated (unambiguous where a key holds a dot) */
  pointer: string;
}

const KNOWN = new Set([
  'type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems',
  'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'pattern',
  'oneOf', 'anyOf', 'allOf', 'if', 'then', 'else', 'default', 'description', 'title', 'examples', 'format',
]);

const WHOLE_TEMPLATE = /^\s*\{\{[^{}]+\}\}\s*$/;

export function isWholeTemplate(value: unknown): boolean {
  return typeof value === 'string' && WHOLE_TEMPLATE.test(value);
}

/** Keywords this validator does not implement, by path (empty when the schema is fully supported). */
export function unsupportedKeywords(schema: unknown, path = '#'): string[] {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (!KNOWN.has(key)) out.push(`${path}/${key}`);
    if (key === 'properties' && value && typeof value === 'object') {
      for (const [name, sub] of Object.entries(value as Schema)) out.push(...unsupportedKeywords(sub, `${path}/properties/${name}`));
    } else if ((key === 'oneOf' || key === 'anyOf' || key === 'allOf') && Array.isArray(value)) {
      value.forEach((sub, i) => out.push(...unsupportedKeywords(sub, `${path}/${key}/${i}`)));
    } else if (key === 'items' || key === 'additionalProperties' || key === 'if' || key === 'then' || key === 'else') {
      out.push(...unsupportedKeywords(value, `${path}/${key}`));
    }
  }
  return out;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function at(path: string, key: string | number): string {
  return path ? `${path}.${key}` : String(key);
}

function pointerAt(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/** The pointer a caller's starting path stands for (`timeout` -> `/timeout`). */
function pointerOfPath(path: string): string {
  return path ? path.split('.').reduce(pointerAt, '') : '';
}

export interface ValidateOptions {
  /** accept a whole template wherever a value is expected (default true; false for values no template engine will resolve, such as tool arguments) */
  templates?: boolean;
}

/** Every problem of value against schema; an empty list means valid. */
export function validateJsonSchema(schema: Schema | boolean | undefined, value: unknown, path = '', opts: ValidateOptions = {}): SchemaProblem[] {
  return check(schema, value, path, pointerOfPath(path), opts);
}

function check(schema: Schema | boolean | undefined, value: unknown, path: string, pointer: string, opts: ValidateOptions): SchemaProblem[] {
  if (schema === undefined || schema === true) return [];
  if (schema === false) return [{ path, pointer, message: 'is not allowed' }];
  if (opts.templates !== false && isWholeTemplate(value)) return [];
  const problems: SchemaProblem[] = [];
  const push = (message: string) => problems.push({ path, pointer, message });
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => typeMatches(value, t))) {
      push(`must be ${types.join(' or ')}, got ${typeOf(value)}`);
      return problems;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) push(`must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) push(`must be ${JSON.stringify(schema.const)}`);
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) push(`must be at least ${schema.minLength} characters long`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) push(`must be at most ${schema.maxLength} characters long`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) push(`must match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) push(`must be >= ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) push(`must be <= ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) push(`must be > ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) push(`must be < ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) push(`must have at least ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) push(`must have at most ${schema.maxItems} items`);
    if (schema.items !== undefined) value.forEach((item, i) => problems.push(...check(schema.items as Schema, item, at(path, i), pointerAt(pointer, i), opts)));
  }
  if (typeOf(value) === 'object') problems.push(...objectProblems(schema, value as Record<string, unknown>, path, pointer, opts));
  problems.push(...combinatorProblems(schema, value, path, pointer, opts));
  return problems;
}

function objectProblems(schema: Schema, value: Record<string, unknown>, path: string, pointer: string, opts: ValidateOptions): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const name of (schema.required ?? []) as string[]) {
    if (value[name] === undefined) problems.push({ path: at(path, name), pointer: pointerAt(pointer, name), message: 'is required' });
  }
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined) continue;
    if (name in properties) problems.push(...check(properties[name], item, at(path, name), pointerAt(pointer, name), opts));
    else if (schema.additionalProperties === false) problems.push({ path: at(path, name), pointer: pointerAt(pointer, name), message: 'is not a known setting' });
    else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      problems.push(...check(schema.additionalProperties as Schema, item, at(path, name), pointerAt(pointer, name), opts));
    }
  }
  return problems;
}

function combinatorProblems(schema: Schema, value: unknown, path: string, pointer: string, opts: ValidateOptions): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const checkHere = (sub: Schema, v: unknown, p: string, o: ValidateOptions): SchemaProblem[] => check(sub, v, p, pointer, o);
  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf) problems.push(...checkHere(sub as Schema, value, path, opts));
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((sub) => checkHere(sub as Schema, value, path, opts).length === 0)) {
    problems.push({ path, pointer, message: 'matches none of the allowed forms' });
  }
  if (Array.isArray(schema.oneOf)) {
    const matching = schema.oneOf.filter((sub) => checkHere(sub as Schema, value, path, opts).length === 0).length;
    if (matching !== 1) problems.push({ path, pointer, message: matching === 0 ? 'matches none of the allowed forms' : 'matches more than one allowed form' });
  }
  if (schema.if !== undefined) {
    const branch = checkHere(schema.if as Schema, value, path, opts).length === 0 ? schema.then : schema.else;
    if (branch !== undefined) problems.push(...checkHere(branch as Schema, value, path, opts));
  }
  return problems;
}
