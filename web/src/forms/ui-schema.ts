import type { UiSchema } from '@rjsf/utils';

type Schema = Record<string, unknown>;

/** a schema whose value the form cannot break into fields: no type and no structure, or an object with nothing declared */
function isFree(schema: Schema): boolean {
  const structural = ['properties', 'items', 'enum', 'const', 'oneOf', 'anyOf', 'allOf', 'if'].some((k) => k in schema);
  if (schema.type === undefined) return !structural;
  if (schema.type === 'object') return !schema.properties && !(schema.additionalProperties && typeof schema.additionalProperties === 'object');
  return Array.isArray(schema.type) && schema.type.filter((t) => t !== 'null').length > 1;
}

/**
 * The uiSchema for a node type's config: free-form values become JSON text boxes (JsonField),
 * multi-line prompts and code get a textarea, and the form submits nothing by itself.
 */
export function uiSchemaFor(schema: unknown): UiSchema {
  const ui: UiSchema = { 'ui:submitButtonOptions': { norender: true } };
  Object.assign(ui, fieldUi(schema));
  return ui;
}

const LONG_TEXT = /prompt|system|code|instructions|template|text|expression|message|body/i;

function fieldUi(schema: unknown, name = ''): UiSchema {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return {};
  const s = schema as Schema;
  if (isFree(s)) return { 'ui:field': 'json' };
  const ui: UiSchema = {};
  if (s.type === 'string' && !s.enum && LONG_TEXT.test(name) && s.maxLength === undefined) ui['ui:widget'] = 'textarea';
  if (s.properties && typeof s.properties === 'object') {
    for (const [key, sub] of Object.entries(s.properties as Schema)) {
      const child = fieldUi(sub, key);
      if (Object.keys(child).length) ui[key] = child;
    }
  }
  if (s.items && typeof s.items === 'object') {
    const child = fieldUi(s.items, name);
    if (Object.keys(child).length) ui.items = child;
  }
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    const child = fieldUi(s.additionalProperties, name);
    if (Object.keys(child).length) ui.additionalProperties = child;
  }
  return ui;
}

const ANY_TYPE = ['object', 'array', 'string', 'number', 'boolean', 'null'];

/**
 * The schema rjsf draws: a value position with no type and no structure (`body: {}`), which
 * rjsf would leave out, gets the list of every JSON type, which accepts exactly what `{}`
 * accepts, so it shows (as a JSON box) and validates the same.
 */
export function formSchemaOf(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const s = { ...(schema as Schema) };
  if (s.type === undefined && isFree(s)) s.type = ANY_TYPE;
  if (s.properties && typeof s.properties === 'object') s.properties = Object.fromEntries(Object.entries(s.properties as Schema).map(([k, v]) => [k, formSchemaOf(v)]));
  if (s.items && typeof s.items === 'object') s.items = formSchemaOf(s.items);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') s.additionalProperties = formSchemaOf(s.additionalProperties);
  return s;
}
