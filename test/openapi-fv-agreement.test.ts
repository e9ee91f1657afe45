/**
 * The converted JSON Schema accepts exactly what fastest-validator accepts:
 * each sample is checked by fastest-validator (the params schema) and by Ajv
 * (the converted schema), and the two verdicts must agree. Only rules whose
 * meaning JSON Schema can carry are here (not luhn's checksum, not formats,
 * which no installed format plugin checks).
 */
import test from 'ava';
import { createRequire } from 'node:module';
import { fastestToJsonSchema } from '../kernel/openapi/fv-to-json-schema.ts';
import { compileWithAjv } from './openapi-ajv.ts';

type Check = (value: unknown) => true | unknown[];
const FastestValidator = createRequire(import.meta.url)('fastest-validator') as new () => {
	compile(schema: unknown): Check;
};

/** [name, params schema, samples: each a params object]. */
type AgreementCase = [string, Record<string, unknown>, Record<string, unknown>[]];

const CASES: AgreementCase[] = [
	['integer range', { n: 'number|integer|min:1|max:5' }, [{ n: 1 }, { n: 5 }, { n: 0 }, { n: 5.5 }, { n: '3' }, {}]],
	['positive optional', { d: 'number|optional|positive' }, [{}, { d: 0 }, { d: 1 }]],
	['negative notEqual', { q: { type: 'number', notEqual: -2, negative: true } }, [{ q: -1 }, { q: -2 }, { q: 0 }, { q: 1 }]],
	['nullable number', { v: { type: 'number', nullable: true } }, [{ v: null }, { v: 1 }, {}, { v: 'x' }]],
	['alpha min', { s: { type: 'string', alpha: true, min: 2 } }, [{ s: 'ab' }, { s: 'a' }, { s: 'a1' }, { s: '' }]],
	['empty allowed with min', { s: { type: 'string', empty: true, min: 3 } }, [{ s: '' }, { s: 'ab' }, { s: 'abc' }]],
	['hex', { h: { type: 'string', hex: true } }, [{ h: 'ab' }, { h: 'abc' }, { h: 'zz' }, { h: 'A0ff' }]],
	['base64', { b: { type: 'string', base64: true } }, [{ b: 'aGVsbG8=' }, { b: 'aGk=' }, { b: 'a' }, { b: '!!!!' }]],
	['singleLine', { s: { type: 'string', singleLine: true } }, [{ s: 'a b' }, { s: 'a\nb' }]],
	['numeric string', { s: { type: 'string', numeric: true } }, [{ s: '-1.5' }, { s: '12' }, { s: '1e3' }, { s: 'x' }]],
	['alphadash', { s: { type: 'string', alphadash: true } }, [{ s: 'a_b-c' }, { s: 'a b' }]],
	['contains and pattern', { s: { type: 'string', pattern: /^[a-z.]+$/, contains: 'a.b' } }, [{ s: 'xa.bx' }, { s: 'xabx' }, { s: 'A.B' }]],
	['string enum', { s: { type: 'string', enum: ['a', 'b'] } }, [{ s: 'a' }, { s: 'c' }]],
	['currency', { c: { type: 'currency', currencySymbol: '$' } },
		[{ c: '$12.99' }, { c: '$0.99' }, { c: '$12,345.99' }, { c: '$1234,567.99' }, { c: '$1,23,456.99' }, { c: '$12,34.5.99' }, { c: '12.99' }]],
	['mac', { m: 'mac' }, [{ m: '01:C8:95:4B:65:FE' }, { m: '01c8.954b.65fe' }, { m: '01-c8-95-4b-65-fe' }, { m: '01C8954B65FE' }]],
	['uuid', { u: 'uuid' }, [
		{ u: '10ba038e-48da-487b-96e8-8d3b99b6d18a' },
		{ u: '10BA038E-48DA-487B-96E8-8D3B99B6D18A' },
		{ u: '00000000-0000-0000-0000-000000000000' },
		{ u: '10ba038e-48da-487b-c6e8-8d3b99b6d18a' },
		{ u: '9a7b330a-a736-11e5-cf7f-feaf819cdc9f' },
		{ u: 'not-a-uuid' },
	]],
	['uuid version', { u: { type: 'uuid', version: 5 } }, [
		{ u: '9a7b330a-a736-51e5-af7f-feaf819cdc9f' },
		{ u: '10ba038e-48da-487b-96e8-8d3b99b6d18a' },
		{ u: '00000000-0000-0000-0000-000000000000' },
	]],
	['url', { l: 'url' }, [{ l: 'http://google.com' }, { l: 'https://github.com/icebob' }, { l: 'www.facebook.com' }]],
	['tuple', { t: { type: 'tuple', items: ['string', 'number'] } }, [{ t: [] }, { t: ['a', 1] }, { t: ['a'] }, { t: [1, 'a'] }]],
	['array', { a: { type: 'array', items: 'string', enum: ['x', 'y'], unique: true, min: 1 } },
		[{ a: ['x'] }, { a: [] }, { a: ['x', 'x'] }, { a: ['z'] }, { a: 'x' }]],
	['array contains', { a: { type: 'array', contains: 3 } }, [{ a: [1, 3] }, { a: [1] }]],
	['strict object', { o: { type: 'object', strict: true, props: { a: 'string' } } }, [{ o: { a: 'x' } }, { o: { a: 'x', b: 1 } }, { o: {} }]],
	['object minProps', { o: { type: 'object', minProps: 2 } }, [{ o: { a: 1, b: 2 } }, { o: { a: 1 } }]],
	['record', { r: { type: 'record', key: { type: 'string', alpha: true }, value: 'number' } }, [{ r: { ab: 1 } }, { r: { a1: 1 } }, { r: { ab: 'x' } }]],
	['equal', { e: { type: 'equal', value: 'yes', strict: true } }, [{ e: 'yes' }, { e: 'no' }]],
	['$$strict', { x: 'string', $$strict: true }, [{ x: 'a' }, { x: 'a', y: 1 }]],
	['alternatives', { m: ['boolean', 'number|min:0|max:1'] }, [{ m: true }, { m: 0.5 }, { m: 2 }, { m: 'x' }]],
	['overlapping alternatives (anyOf, not oneOf)', { m: ['string', 'string|min:3'] }, [{ m: 'abcd' }, { m: 'a' }, { m: 1 }]],
	['forbidden is left out', { a: 'string', f: 'forbidden' }, [{ a: 'x' }]],
	['nested $$type', { c: { $$type: 'object|optional', r: 'number' } }, [{}, { c: { r: 1 } }, { c: {} }]],
];

for (const [name, params, samples] of CASES) {
	test(`fastest-validator and the JSON Schema agree: ${name}`, (t) => {
		const fv = new FastestValidator().compile(params);
		const ajv = compileWithAjv(fastestToJsonSchema(params));
		for (const sample of samples) {
			// fastest-validator sanitizes in place; each side gets its own copy.
			const fvAccepts = fv(structuredClone(sample)) === true;
			t.is(ajv(structuredClone(sample)), fvAccepts, `${JSON.stringify(sample)}: fastest-validator says ${fvAccepts}`);
		}
	});
}
