import { unsupportedKeywords } from '../json-schema/validate.ts';
import { TOOL_NAME_PATTERN, TOOL_RISK_LEVELS, TOOL_SIDE_EFFECTS, type ToolDeclaration } from '../tools-contract.ts';

const DECLARATION_KEYS = new Set(['name', 'description', 'parameters', 'risk', 'side_effect', 'category']);
const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const NUMERIC_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];
const CATEGORY_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const MAX_DESCRIPTION_LENGTH = 4000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What the validator would trip on at call time, found when the tool loads instead: bad `type`
 * names, patterns that do not compile, `required` that is not a list of names, misshapen
 * sub-schemas. (Unknown keywords are reported by unsupportedKeywords.)
 */
function schemaShapeProblems(schema: unknown, path: string): string[] {
  if (typeof schema === 'boolean') return [];
  if (!isObject(schema)) return [`${path} must be a schema object`];
  const out: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.length || !types.every((t) => typeof t === 'string' && JSON_TYPES.has(t))) out.push(`${path}/type must name JSON types (${[...JSON_TYPES].join(', ')})`);
  }
  if (schema.pattern !== undefined) {
    try {
      if (typeof schema.pattern !== 'string') throw new Error('not a string');
      new RegExp(schema.pattern, 'u');
    } catch {
      out.push(`${path}/pattern is not a valid regular expression`);
    }
  }
  if (schema.required !== undefined && !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === 'string'))) out.push(`${path}/required must be a list of property names`);
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) out.push(`${path}/enum must be an array`);
  for (const key of NUMERIC_KEYWORDS) if (schema[key] !== undefined && typeof schema[key] !== 'number') out.push(`${path}/${key} must be a number`);
  if (schema.properties !== undefined) {
    if (!isObject(schema.properties)) out.push(`${path}/properties must be an object`);
    else for (const [name, sub] of Object.entries(schema.properties)) out.push(...schemaShapeProblems(sub, `${path}/properties/${name}`));
  }
  for (const key of ['items', 'additionalProperties', 'if', 'then', 'else']) if (schema[key] !== undefined) out.push(...schemaShapeProblems(schema[key], `${path}/${key}`));
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    if (schema[key] === undefined) continue;
    const list = schema[key];
    if (!Array.isArray(list) || !list.length) out.push(`${path}/${key} must be a non-empty array`);
    else list.forEach((sub, i) => out.push(...schemaShapeProblems(sub, `${path}/${key}/${i}`)));
  }
  return out;
}

/** Every problem of a tool declaration (empty when it is usable). */
export function declarationProblems(declaration: unknown): string[] {
  if (!isObject(declaration)) return ['the declaration (metadata.tool) is not an object'];
  const d = declaration as Partial<ToolDeclaration> & Record<string, unknown>;
  const out: string[] = [];
  for (const key of Object.keys(d)) if (!DECLARATION_KEYS.has(key)) out.push(`'${key}' is not a declaration key (${[...DECLARATION_KEYS].join(', ')})`);
  if (typeof d.name !== 'string' || !TOOL_NAME_PATTERN.test(d.name)) out.push(`name must match ${TOOL_NAME_PATTERN}`);
  if (typeof d.description !== 'string' || !d.description.trim() || d.description.length > MAX_DESCRIPTION_LENGTH) out.push(`description must be a non-empty string of at most ${MAX_DESCRIPTION_LENGTH} characters`);
  if (!TOOL_RISK_LEVELS.includes(d.risk as never)) out.push(`risk must be one of ${TOOL_RISK_LEVELS.join(', ')}`);
  if (!TOOL_SIDE_EFFECTS.includes(d.side_effect as never)) out.push(`side_effect must be one of ${TOOL_SIDE_EFFECTS.join(', ')}`);
  if (d.category !== undefined && (typeof d.category !== 'string' || !CATEGORY_PATTERN.test(d.category))) out.push(`category must match ${CATEGORY_PATTERN}`);
  if (!isObject(d.parameters) || d.parameters.type !== 'object') {
    out.push("parameters must be a JSON schema with type 'object'");
  } else {
    const unsupported = unsupportedKeywords(d.parameters);
    if (unsupported.length) out.push(`parameters use keywords the validator does not check: ${unsupported.join(', ')}`);
    out.push(...schemaShapeProblems(d.parameters, 'parameters'));
  }
  return out;
}

/** Throws an Error listing the problems: a tool package with a bad declaration fails to load. */
export function assertDeclaration(declaration: unknown): asserts declaration is ToolDeclaration {
  const problems = declarationProblems(declaration);
  if (problems.length) {
    const name = isObject(declaration) && typeof declaration.name === 'string' ? `'${declaration.name}'` : '(unnamed)';
    throw new Error(`tool ${name} has an invalid declaration: ${problems.join('; ')}`);
  }
}
