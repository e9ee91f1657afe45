/**
 * The server's config dialect (kernel/json-schema/validate.ts), expressed in plain JSON Schema so
 * an interpreting validator can check it: a string that is one whole template (`{{...}}`) is
 * accepted wherever a value is expected (its type is known only at run time), and `format` is an
 * annotation the server does not check. Each value position S becomes `anyOf: [S', TEMPLATE]`,
 * the wrapper marked so its own errors (and the template branch's) can be told from the schema's.
 */
export type JsonSchema = { [keyword: string]: unknown };

export const TEMPLATE_MARK = 'x-wao-template';
export const WRAPPER_MARK = 'x-wao-template-wrapper';
const TEMPLATE_BRANCH: JsonSchema = { type: 'string', pattern: '^\\s*\\{\\{[^{}]+\\}\\}\\s*$', [TEMPLATE_MARK]: true };

/** a schema's subschemas at value positions (each validated against a value of its own) */
const VALUE_MAPS = ['properties'] as const;
const VALUE_SINGLES = ['items', 'additionalProperties'] as const;
/** subschemas applied to the same value (not wrapped: the value's own wrapper already accepts a template) */
const SAME_VALUE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const SAME_VALUE_SINGLES = ['if', 'then', 'else'] as const;

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** the schema with its subschemas made template-tolerant, but this value itself not wrapped */
function inner(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'format') continue;
    if ((VALUE_MAPS as readonly string[]).includes(key) && isSchema(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, tolerant(sub)]));
    } else if ((VALUE_SINGLES as readonly string[]).includes(key) && isSchema(value)) {
      out[key] = tolerant(value);
    } else if ((SAME_VALUE_LISTS as readonly string[]).includes(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => (isSchema(sub) ? inner(sub) : sub));
    } else if ((SAME_VALUE_SINGLES as readonly string[]).includes(key) && isSchema(value)) {
      out[key] = inner(value);
    } else out[key] = value;
  }
  return out;
}

/** A schema accepting a whole template wherever it accepts a value, and nothing else more. */
export function tolerant(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  return { anyOf: [inner(schema), TEMPLATE_BRANCH], [WRAPPER_MARK]: true };
}
