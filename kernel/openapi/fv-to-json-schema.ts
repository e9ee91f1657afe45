/**
 * fastest-validator params schemas -> JSON Schema 2020-12 (what OpenAPI 3.1 uses).
 *
 * Documented choices:
 * - `convert: true` does not widen the type: the schema says what the handler
 *   receives and what a client should send, not what the server tolerates.
 * - `multi` (and an array of alternative rules) becomes `anyOf`: fastest-validator
 *   accepts a value when ANY alternative matches; `oneOf` would reject a value
 *   two alternatives both accept (`['string', 'email']`).
 * - `forbidden` and `function` properties are left out; `class`, `custom`,
 *   `equal` to another field and unknown types (validator aliases or plugins)
 *   become the opaque schema `{}`.
 * - Sanitizers (trim, lowercase, padStart, ...) change values, not what is accepted.
 */
import { isPlainObject, resolveRule, type FvRule } from './fv-rule.ts';
import {
	currencySchema,
	emailSchema,
	luhnSchema,
	macSchema,
	objectIdSchema,
	stringSchema,
	urlSchema,
	uuidSchema,
} from './fv-string-rules.ts';
import type { JSONSchema } from './types.ts';

/** One converted property: its schema and whether the validator requires it. */
export interface ConvertedRule {
	schema: JSONSchema;
	required: boolean;
}

const OMIT = Symbol('omit');
type TypeConverter = (rule: FvRule) => JSONSchema | typeof OMIT;

/**
 * Converts a whole `params` schema: an object of property rules (with optional
 * `$$strict`), a `$$root: true` rule, a single rule in string shorthand, or an
 * array of alternative rules. `undefined`/`null` (no params declared) gives `{}`.
 */
export function fastestToJsonSchema(schema: unknown): JSONSchema {
	if (schema === undefined || schema === null) return {};
	if (typeof schema === 'string' || Array.isArray(schema)) return convertRule(schema)?.schema ?? {};
	if (!isPlainObject(schema)) {
		throw new Error(`A fastest-validator schema must be an object, a string or an array, got ${typeof schema}`);
	}
	if (schema.$$root === true) {
		const { $$root: _root, ...rule } = schema;
		return convertRule(rule)?.schema ?? {};
	}
	return objectSchema(schema, schema.$$strict);
}

/** Converts one rule (any form). `null` means the property is not part of the schema at all. */
export function convertRule(raw: unknown): ConvertedRule | null {
	const rule = resolveRule(raw);
	if (rule === null) return { schema: {}, required: true };
	const converter = TYPE_CONVERTERS[rule.type] ?? opaque;
	const converted = converter(rule);
	if (converted === OMIT) return null;
	const schema = withAnnotations(rule.nullable === true ? withNull(converted) : converted, rule);
	return { schema, required: rule.optional !== true && rule.default === undefined };
}

/** The object schema of a map of property rules (keys starting with `$$` are validator options). */
export function objectSchema(props: Record<string, unknown>, strict: unknown): JSONSchema {
	const properties: Record<string, JSONSchema> = {};
	const required: string[] = [];
	for (const [name, raw] of Object.entries(props)) {
		if (name.startsWith('$$')) continue;
		const converted = convertRule(raw);
		if (converted === null) continue;
		properties[name] = converted.schema;
		if (converted.required) required.push(name);
	}
	const schema: JSONSchema = { type: 'object', properties };
	if (required.length > 0) schema.required = required;
	// `strict: 'remove'` drops unknown keys instead of rejecting them.
	if (strict === true) schema.additionalProperties = false;
	return schema;
}

function opaque(): JSONSchema {
	return {};
}

function numberSchema(rule: FvRule): JSONSchema {
	const schema: JSONSchema = { type: rule.integer === true ? 'integer' : 'number' };
	if (typeof rule.min === 'number') schema.minimum = rule.min;
	if (typeof rule.max === 'number') schema.maximum = rule.max;
	if (rule.positive === true) schema.exclusiveMinimum = 0;
	if (rule.negative === true) schema.exclusiveMaximum = 0;
	if (typeof rule.equal === 'number') schema.const = rule.equal;
	if (typeof rule.notEqual === 'number') schema.not = { const: rule.notEqual };
	return schema;
}

function arraySchema(rule: FvRule): JSONSchema {
	const schema: JSONSchema = { type: 'array' };
	const items = rule.items === undefined ? null : convertRule(rule.items);
	const itemSchema: JSONSchema = { ...(items?.schema ?? {}) };
	if (Array.isArray(rule.enum)) itemSchema.enum = rule.enum;
	if (Object.keys(itemSchema).length > 0) schema.items = itemSchema;
	if (typeof rule.min === 'number') schema.minItems = rule.min;
	if (typeof rule.max === 'number') schema.maxItems = rule.max;
	if (typeof rule.length === 'number') {
		schema.minItems = rule.length;
		schema.maxItems = rule.length;
	}
	if (rule.empty === false) schema.minItems = Math.max(Number(schema.minItems ?? 0), 1);
	if (rule.unique === true) schema.uniqueItems = true;
	if (rule.contains !== undefined) schema.contains = { const: rule.contains };
	return schema;
}

function tupleSchema(rule: FvRule): JSONSchema {
	if (!Array.isArray(rule.items)) {
		return rule.empty === false ? { type: 'array', minItems: 1 } : { type: 'array' };
	}
	const prefixItems = rule.items.map((item) => convertRule(item)?.schema ?? {});
	const exact: JSONSchema = { type: 'array', prefixItems, minItems: prefixItems.length, maxItems: prefixItems.length };
	// fastest-validator lets an empty array through a tuple unless `empty: false`.
	if (rule.empty === false) return exact;
	const { type, ...rest } = exact;
	return { type, anyOf: [{ maxItems: 0 }, rest] };
}

function objectRuleSchema(rule: FvRule): JSONSchema {
	const props = rule.props ?? rule.properties;
	const schema: JSONSchema = isPlainObject(props) ? objectSchema(props, rule.strict) : { type: 'object' };
	if (typeof rule.minProps === 'number') schema.minProperties = rule.minProps;
	if (typeof rule.maxProps === 'number') schema.maxProperties = rule.maxProps;
	return schema;
}

function recordSchema(rule: FvRule): JSONSchema {
	const schema: JSONSchema = { type: 'object' };
	if (rule.key !== undefined) {
		const { type: _string, ...keyConstraints } = convertRule(rule.key)?.schema ?? {};
		if (Object.keys(keyConstraints).length > 0) schema.propertyNames = keyConstraints;
	}
	if (rule.value !== undefined) schema.additionalProperties = convertRule(rule.value)?.schema ?? {};
	return schema;
}

function multiSchema(rule: FvRule): JSONSchema {
	const alternatives = Array.isArray(rule.rules) ? rule.rules : [];
	const anyOf = alternatives.flatMap((alternative) => {
		const converted = convertRule(alternative);
		return converted === null ? [] : [converted.schema];
	});
	if (anyOf.length === 0) return {};
	return anyOf.length === 1 ? anyOf[0] : { anyOf };
}

function equalSchema(rule: FvRule): JSONSchema {
	// Equality with another field cannot be said in JSON Schema. Without `strict`, fastest-validator
	// compares with `==`; `const` documents the value a client should send.
	if (typeof rule.field === 'string' || rule.value === undefined) return {};
	return { const: rule.value };
}

const TYPE_CONVERTERS: Record<string, TypeConverter> = {
	any: opaque,
	array: arraySchema,
	boolean: () => ({ type: 'boolean' }),
	class: opaque,
	currency: currencySchema,
	custom: opaque,
	date: () => ({ type: 'string', format: 'date-time' }),
	email: emailSchema,
	enum: (rule) => (Array.isArray(rule.values) ? { enum: rule.values } : {}),
	equal: equalSchema,
	forbidden: () => OMIT,
	function: () => OMIT,
	luhn: luhnSchema,
	mac: macSchema,
	multi: multiSchema,
	number: numberSchema,
	object: objectRuleSchema,
	objectID: objectIdSchema,
	record: recordSchema,
	string: stringSchema,
	tuple: tupleSchema,
	url: urlSchema,
	uuid: uuidSchema,
};

/** Lets `null` through as fastest-validator's `nullable: true` does. */
function withNull(schema: JSONSchema): JSONSchema {
	if (Object.keys(schema).length === 0) return schema;
	const { type } = schema;
	if (typeof type === 'string' && schema.enum === undefined && schema.const === undefined) {
		return { ...schema, type: [type, 'null'] };
	}
	return { anyOf: [schema, { type: 'null' }] };
}

function isJsonValue(value: unknown): boolean {
	if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
		return false;
	}
	if (Array.isArray(value)) return value.every(isJsonValue);
	if (value instanceof Date || value instanceof RegExp) return false;
	if (isPlainObject(value)) return Object.values(value).every(isJsonValue);
	return typeof value !== 'number' || Number.isFinite(value);
}

/** Passes `label` (as title), `description`, `default`, `example` and `examples` through. */
function withAnnotations(schema: JSONSchema, rule: FvRule): JSONSchema {
	const out: JSONSchema = { ...schema };
	if (typeof rule.label === 'string') out.title = rule.label;
	if (typeof rule.description === 'string') out.description = rule.description;
	// A default computed by a function is known only at validation time.
	if (rule.default !== undefined && isJsonValue(rule.default)) out.default = rule.default;
	const examples = [
		...(rule.example !== undefined ? [rule.example] : []),
		...(Array.isArray(rule.examples) ? rule.examples : []),
	].filter(isJsonValue);
	if (examples.length > 0) out.examples = examples;
	return out;
}
