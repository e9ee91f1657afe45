import test from 'ava';
import { fastestToJsonSchema } from '../kernel/openapi/fv-to-json-schema.ts';
import type { JSONSchema } from '../kernel/openapi/types.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';
import { strictKeywordProblems } from './openapi-ajv.ts';

/** [name, fastest-validator params schema, expected JSON Schema]. Object params use `obj()` below. */
type Case = [string, unknown, JSONSchema];

const obj = (properties: Record<string, JSONSchema>, required: string[] = Object.keys(properties)): JSONSchema =>
	required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
const one = (schema: JSONSchema, required = true): JSONSchema => obj({ p: schema }, required ? ['p'] : []);

const MAC =
	'^(?:(?:(?:[a-fA-F0-9][a-fA-F0-9]+-){5}|(?:[a-fA-F0-9][a-fA-F0-9]+:){5})[a-fA-F0-9][a-fA-F0-9]' +
	'|(?:[a-fA-F0-9]{4,}\\.){2}[a-fA-F0-9]{4})$';

const CASES: Case[] = [
	// ---- shorthand strings
	['shorthand string', { p: 'string' }, one({ type: 'string' })],
	['shorthand optional', { p: 'string|optional' }, one({ type: 'string' }, false)],
	['shorthand number options', { p: 'number|integer|min:1|max:5' }, one({ type: 'integer', minimum: 1, maximum: 5 })],
	['shorthand email', { p: 'email' }, one({ type: 'string', format: 'email' })],
	['shorthand array of', { p: 'string[]' }, one({ type: 'array', items: { type: 'string' } })],
	['shorthand no- prefix', { p: 'string|min:3|no-empty' }, one({ type: 'string', minLength: 3 })],
	['shorthand default', { p: 'boolean|default:true' }, one({ type: 'boolean', default: true }, false)],
	['shorthand alternatives', { p: ['boolean', 'number|min:0|max:1'] }, one({ anyOf: [{ type: 'boolean' }, { type: 'number', minimum: 0, maximum: 1 }] })],
	['alternatives all optional', { p: ['string|optional', 'number|optional'] }, one({ anyOf: [{ type: 'string' }, { type: 'number' }] }, false)],
	['alternatives some optional', { p: ['string|optional', 'number'] }, one({ anyOf: [{ type: 'string' }, { type: 'number' }] })],
	// ---- params-level options
	['$$strict', { a: 'string', $$strict: true }, { ...obj({ a: { type: 'string' } }), additionalProperties: false }],
	['$$strict remove', { a: 'string', $$strict: 'remove' }, obj({ a: { type: 'string' } })],
	['$$root rule', { $$root: true, type: 'string', min: 3, max: 6 }, { type: 'string', minLength: 3, maxLength: 6 }],
	['$$root object', { $$root: true, type: 'object', props: { a: 'number' } }, obj({ a: { type: 'number' } })],
	['top-level shorthand', 'number|positive', { type: 'number', exclusiveMinimum: 0 }],
	['top-level alternatives', ['string', 'number'], { anyOf: [{ type: 'string' }, { type: 'number' }] }],
	['no params', undefined, {}],
	['nested $$type', { c: { $$type: 'object|optional', r: 'number', o: { $$type: 'object', x: 'number' } } },
		obj({ c: { type: 'object', properties: { r: { type: 'number' }, o: obj({ x: { type: 'number' } }) }, required: ['r', 'o'] } }, [])],
	// ---- optional, default, nullable
	['optional flag', { p: { type: 'number', optional: true } }, one({ type: 'number' }, false)],
	['default makes optional', { p: { type: 'string', default: 'x' } }, one({ type: 'string', default: 'x' }, false)],
	['function default omitted', { p: { type: 'date', default: () => new Date() } }, one({ type: 'string', format: 'date-time' }, false)],
	['nullable stays required', { p: { type: 'number', nullable: true } }, one({ type: ['number', 'null'] })],
	['nullable enum', { p: { type: 'enum', values: ['a'], nullable: true } }, one({ anyOf: [{ enum: ['a'] }, { type: 'null' }] })],
	['nullable any', { p: { type: 'any', nullable: true } }, one({})],
	// ---- annotations
	['description and example', { p: { type: 'string', description: 'A name', example: 'Ada' } }, one({ type: 'string', description: 'A name', examples: ['Ada'] })],
	['examples and label', { p: { type: 'number', label: 'Age', examples: [1, 2] } }, one({ type: 'number', title: 'Age', examples: [1, 2] })],
	// ---- any, boolean, class, custom, unknown
	['any', { p: 'any' }, one({})],
	['boolean convert keeps type', { p: { type: 'boolean', convert: true } }, one({ type: 'boolean' })],
	['class is opaque', { p: { type: 'class', instanceOf: Buffer } }, one({})],
	['custom is opaque', { p: { type: 'custom', check: (v: unknown) => v } }, one({})],
	['unknown type (alias) is opaque', { p: 'username|max:5' }, one({})],
	// ---- array
	['array items min max', { p: { type: 'array', items: 'number', min: 1, max: 3 } }, one({ type: 'array', items: { type: 'number' }, minItems: 1, maxItems: 3 })],
	['array length unique', { p: { type: 'array', length: 2, unique: true } }, one({ type: 'array', minItems: 2, maxItems: 2, uniqueItems: true })],
	['array enum contains', { p: { type: 'array', items: 'string', enum: ['a', 'b'], contains: 'a' } },
		one({ type: 'array', items: { type: 'string', enum: ['a', 'b'] }, contains: { const: 'a' } })],
	['array not empty', { p: { type: 'array', empty: false } }, one({ type: 'array', minItems: 1 })],
	// ---- currency, date, email, enum, equal
	['currency', { p: { type: 'currency', currencySymbol: '$' } },
		one({ type: 'string', pattern: '(?=.*\\d)^(-?\\$|\\$-?)(([0-9]\\d{0,2}(,\\d{3})*)|0)?(\\.\\d{1,2})?$' })],
	['date', { p: 'date' }, one({ type: 'string', format: 'date-time' })],
	['email min max', { p: { type: 'email', mode: 'precise', min: 5, max: 50 } }, one({ type: 'string', format: 'email', minLength: 5, maxLength: 50 })],
	['email empty allowed', { p: { type: 'email', empty: true } }, one({ type: 'string', anyOf: [{ maxLength: 0 }, { format: 'email' }] })],
	['enum', { p: { type: 'enum', values: ['todo', 'done'] } }, one({ enum: ['todo', 'done'] })],
	['equal value', { p: { type: 'equal', value: true, strict: true } }, one({ const: true })],
	['equal field', { p: { type: 'equal', field: 'password' } }, one({})],
	// ---- forbidden, function (left out)
	['forbidden omitted', { a: 'string', p: 'forbidden' }, obj({ a: { type: 'string' } })],
	['function omitted', { a: 'string', p: { type: 'function', optional: true } }, obj({ a: { type: 'string' } })],
	// ---- luhn, mac, multi
	['luhn', { p: 'luhn' }, one({ type: 'string', pattern: '[0-9]' })],
	['mac', { p: 'mac' }, one({ type: 'string', pattern: MAC })],
	['multi', { p: { type: 'multi', rules: [{ type: 'boolean' }, { type: 'number' }], default: true } },
		one({ anyOf: [{ type: 'boolean' }, { type: 'number' }], default: true }, false)],
	// ---- number
	['number bounds', { p: { type: 'number', min: 0, max: 10, positive: true, negative: false } }, one({ type: 'number', minimum: 0, maximum: 10, exclusiveMinimum: 0 })],
	['number equal notEqual', { p: { type: 'number', equal: 3 }, q: { type: 'number', notEqual: 0, negative: true } },
		obj({ p: { type: 'number', const: 3 }, q: { type: 'number', exclusiveMaximum: 0, not: { const: 0 } } })],
	['number convert keeps type', { p: 'number|convert|integer' }, one({ type: 'integer' })],
	// ---- object, objectID, record
	['object strict props', { p: { type: 'object', strict: true, props: { a: 'string', b: 'number|optional' } } },
		one({ ...obj({ a: { type: 'string' }, b: { type: 'number' } }, ['a']), additionalProperties: false })],
	['object properties alias, minProps maxProps', { p: { type: 'object', properties: { a: 'string' }, minProps: 1, maxProps: 3 } },
		one({ ...obj({ a: { type: 'string' } }), minProperties: 1, maxProperties: 3 })],
	['object without props', { p: 'object' }, one({ type: 'object' })],
	['objectID', { p: 'objectID' }, one({ type: 'string', pattern: '^[0-9a-fA-F]{24}$' })],
	['record', { p: { type: 'record', key: { type: 'string', alpha: true }, value: { type: 'array', items: 'string' } } },
		one({ type: 'object', propertyNames: { pattern: '^[a-zA-Z]+$' }, additionalProperties: { type: 'array', items: { type: 'string' } } })],
	// ---- string
	['string lengths', { p: { type: 'string', min: 2, max: 9 }, q: { type: 'string', length: 4 } },
		obj({ p: { type: 'string', minLength: 2, maxLength: 9 }, q: { type: 'string', minLength: 4, maxLength: 4 } })],
	['string pattern and contains', { p: { type: 'string', pattern: /^[a-z]+$/, contains: 'a.b' } },
		one({ type: 'string', pattern: '^[a-z]+$', allOf: [{ pattern: 'a\\.b' }] })],
	['string pattern with patternFlags g', { p: { type: 'string', pattern: '^x', patternFlags: 'g' } }, one({ type: 'string', pattern: '^x' })],
	['case-insensitive pattern left out', { p: { type: 'string', pattern: /^x$/i } }, one({ type: 'string' })],
	['pattern lost over the network', { p: { type: 'string', pattern: {} } }, one({ type: 'string' })],
	['string enum', { p: { type: 'string', enum: ['a', 'b'] } }, one({ type: 'string', enum: ['a', 'b'] })],
	['string numeric', { p: { type: 'string', numeric: true } }, one({ type: 'string', pattern: '^-?[0-9]\\d*(\\.\\d+)?$' })],
	['string alpha alphanum', { p: { type: 'string', alpha: true }, q: { type: 'string', alphanum: true } },
		obj({ p: { type: 'string', pattern: '^[a-zA-Z]+$' }, q: { type: 'string', pattern: '^[a-zA-Z0-9]+$' } })],
	['string alphadash hex', { p: { type: 'string', alphadash: true }, q: { type: 'string', hex: true } },
		obj({ p: { type: 'string', pattern: '^[a-zA-Z0-9_\\-]+$' }, q: { type: 'string', pattern: '^(?:[0-9a-fA-F]{2})+$' } })],
	['string singleLine', { p: { type: 'string', singleLine: true } }, one({ type: 'string', pattern: '^[^\\n]*$' })],
	['string base64', { p: { type: 'string', base64: true } },
		one({ type: 'string', contentEncoding: 'base64', pattern: '^(?:[A-Za-z0-9+\\\\/]{4})*(?:[A-Za-z0-9+\\\\/]{2}==|[A-Za-z0-9+/]{3}=)?$' })],
	['string sanitizers change nothing', { p: { type: 'string', trim: true, lowercase: true, padStart: 3, convert: true } }, one({ type: 'string' })],
	['string empty false', { p: { type: 'string', empty: false } }, one({ type: 'string', minLength: 1 })],
	['string empty true with min', { p: { type: 'string', empty: true, min: 3 } }, one({ type: 'string', anyOf: [{ maxLength: 0 }, { minLength: 3 }] })],
	// ---- tuple, url, uuid
	['tuple', { p: { type: 'tuple', items: ['string', 'number'] } },
		one({ type: 'array', anyOf: [{ maxItems: 0 }, { prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 2, maxItems: 2 }] })],
	['tuple not empty', { p: { type: 'tuple', empty: false, items: ['string'] } },
		one({ type: 'array', prefixItems: [{ type: 'string' }], minItems: 1, maxItems: 1 })],
	['url', { p: 'url' }, one({ type: 'string', format: 'uri', pattern: '^https?://\\S+' })],
	['uuid version', { p: { type: 'uuid', version: 4 } },
		one({ type: 'string', format: 'uuid', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-(?:[4][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3})-[0-9a-fA-F]{12}$' })],
];

for (const [name, input, expected] of CASES) {
	test(`fv -> JSON Schema: ${name}`, (t) => {
		t.deepEqual(fastestToJsonSchema(input), expected);
	});
}

test('the converter does not mutate its input', (t) => {
	const params = { c: { $$type: 'object|optional', r: 'number' }, s: ['string', 'number'] };
	const copy = structuredClone(params);
	fastestToJsonSchema(params);
	t.deepEqual(params, copy);
});

test('a schema that is not an object, string or array is rejected', (t) => {
	t.throws(() => fastestToJsonSchema(42), { message: /must be an object, a string or an array, got number/ });
});

test('every produced schema is valid JSON Schema inside an OpenAPI 3.1 document', async (t) => {
	const schemas = Object.fromEntries(CASES.map(([, input], i) => [`case_${i}`, fastestToJsonSchema(input)]));
	await t.notThrowsAsync(validateOpenApi({ openapi: '3.1.0', info: { title: 'fv cases', version: '1' }, paths: {}, components: { schemas } }));
	for (const [name, input] of CASES) t.deepEqual(strictKeywordProblems(fastestToJsonSchema(input)), [], name);
});

test('the document validator does catch an invalid schema', async (t) => {
	const broken = { type: 'strin', minLength: -1, pattern: '\\-' };
	const error = await t.throwsAsync(validateOpenApi({ openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: {}, components: { schemas: { broken } } }));
	t.regex(error.message, /must be equal to one of the allowed values/);
	t.regex(error.message, /minLength must be >= 0/);
	t.regex(error.message, /pattern: Invalid regular expression/);
});
