import type { FvRule } from './fv-rule.ts';
import type { JSONSchema } from './types.ts';

/*
 * String-valued fastest-validator rules. The patterns are those of
 * fastest-validator's own rule files (lib/rules/*.js), rewritten where needed so
 * they are valid with the `u` flag JSON Schema validators use, and made
 * case-insensitive by character classes where the original used the `i` flag.
 */
const NUMERIC = '^-?[0-9]\\d*(\\.\\d+)?$';
const ALPHA = '^[a-zA-Z]+$';
const ALPHANUM = '^[a-zA-Z0-9]+$';
const ALPHADASH = '^[a-zA-Z0-9_\\-]+$';
const EVEN_LENGTH_HEX = '^(?:[0-9a-fA-F]{2})+$';
const SINGLE_LINE = '^[^\\n]*$';
const BASE64 = '^(?:[A-Za-z0-9+\\\\/]{4})*(?:[A-Za-z0-9+\\\\/]{2}==|[A-Za-z0-9+/]{3}=)?$';
const MAC =
	'^(?:(?:(?:[a-fA-F0-9][a-fA-F0-9]+-){5}|(?:[a-fA-F0-9][a-fA-F0-9]+:){5})[a-fA-F0-9][a-fA-F0-9]' +
	'|(?:[a-fA-F0-9]{4,}\\.){2}[a-fA-F0-9]{4})$';
const OBJECT_ID = '^[0-9a-fA-F]{24}$';
const CURRENCY_TEMPLATE = '(?=.*\\d)^(-?~1|~1-?)(([0-9]\\d{0,2}(~2\\d{3})*)|0)?(~3\\d{1,2})?$';

export function escapeRegex(text: string): string {
	// `-` is left alone: `\-` outside a class is a syntax error under the `u` flag.
	return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A fastest-validator `pattern` (RegExp or string + patternFlags) as a JSON Schema pattern, if expressible. */
export function patternSource(pattern: unknown, flags: unknown): string | null {
	// A RegExp sent over the transporter arrives as `{}`: nothing left to document.
	const source = pattern instanceof RegExp ? pattern.source : typeof pattern === 'string' ? pattern : null;
	const flagText = pattern instanceof RegExp ? pattern.flags : typeof flags === 'string' ? flags : '';
	if (source === null) return null;
	// JSON Schema patterns have no flags; `i`, `m` and `s` change what matches, so such a pattern is left out.
	if (/[ims]/.test(flagText)) return null;
	return source;
}

/** Puts one pattern in `pattern` and any further ones in `allOf`, since a schema holds one `pattern`. */
export function withPatterns(schema: JSONSchema, patterns: string[]): JSONSchema {
	if (patterns.length === 0) return schema;
	const [first, ...rest] = patterns;
	const result: JSONSchema = { ...schema, pattern: first };
	if (rest.length > 0) result.allOf = rest.map((pattern) => ({ pattern }));
	return result;
}

/** fastest-validator's `empty: true` accepts `""` before checking anything else. */
function allowingEmpty(schema: JSONSchema, rule: FvRule): JSONSchema {
	if (rule.empty !== true) return schema;
	const { type, ...constraints } = schema;
	if (Object.keys(constraints).length === 0) return schema;
	return { type, anyOf: [{ maxLength: 0 }, constraints] };
}

function lengthLimits(rule: FvRule): JSONSchema {
	const out: JSONSchema = {};
	if (typeof rule.min === 'number') out.minLength = rule.min;
	if (typeof rule.max === 'number') out.maxLength = rule.max;
	if (typeof rule.length === 'number') {
		out.minLength = rule.length;
		out.maxLength = rule.length;
	}
	if (rule.empty === false) out.minLength = Math.max(Number(out.minLength ?? 0), 1);
	return out;
}

export function stringSchema(rule: FvRule): JSONSchema {
	const schema: JSONSchema = { type: 'string', ...lengthLimits(rule) };
	if (Array.isArray(rule.enum)) schema.enum = rule.enum;
	if (rule.base64 === true) schema.contentEncoding = 'base64';
	const patterns: string[] = [];
	const custom = patternSource(rule.pattern, rule.patternFlags);
	if (custom !== null) patterns.push(custom);
	if (typeof rule.contains === 'string') patterns.push(escapeRegex(rule.contains));
	if (rule.numeric === true) patterns.push(NUMERIC);
	if (rule.alpha === true) patterns.push(ALPHA);
	if (rule.alphanum === true) patterns.push(ALPHANUM);
	if (rule.alphadash === true) patterns.push(ALPHADASH);
	if (rule.hex === true) patterns.push(EVEN_LENGTH_HEX);
	if (rule.singleLine === true) patterns.push(SINGLE_LINE);
	if (rule.base64 === true) patterns.push(BASE64);
	return allowingEmpty(withPatterns(schema, patterns), rule);
}

export function emailSchema(rule: FvRule): JSONSchema {
	const { minLength, maxLength } = lengthLimits({ ...rule, empty: undefined });
	const schema: JSONSchema = { type: 'string', format: 'email' };
	if (minLength !== undefined) schema.minLength = minLength;
	if (maxLength !== undefined) schema.maxLength = maxLength;
	return allowingEmpty(schema, rule);
}

export function urlSchema(rule: FvRule): JSONSchema {
	return allowingEmpty({ type: 'string', format: 'uri', pattern: '^https?://\\S+' }, rule);
}

const HEX = '[0-9a-fA-F]';
const NIL_UUID = '0{8}-0{4}-0{4}-0{4}-0{12}';

/** Versions 3, 4, 5, 7 and 8 must carry the RFC 4122 variant (8, 9, a or b), as fastest-validator checks. */
function uuidBody(versions: string): string {
	const plain = versions.replace(/[34578]/g, '');
	const withVariant = versions.replace(/[126]/g, '');
	const tails: string[] = [];
	if (plain) tails.push(`[${plain}]${HEX}{3}-${HEX}{4}`);
	if (withVariant) tails.push(`[${withVariant}]${HEX}{3}-[89abAB]${HEX}{3}`);
	return `${HEX}{8}-${HEX}{4}-(?:${tails.join('|')})-${HEX}{12}`;
}

export function uuidSchema(rule: FvRule): JSONSchema {
	const version = Number(rule.version);
	// With a version, the nil UUID (version 0) is rejected too.
	const pattern =
		Number.isInteger(version) && version >= 1 && version <= 8
			? `^${uuidBody(String(version))}$`
			: `^(?:${uuidBody('12345678')}|${NIL_UUID})$`;
	return { type: 'string', format: 'uuid', pattern };
}

export function macSchema(): JSONSchema {
	return { type: 'string', pattern: MAC };
}

export function objectIdSchema(): JSONSchema {
	return { type: 'string', pattern: OBJECT_ID };
}

export function currencySchema(rule: FvRule): JSONSchema {
	const custom = patternSource(rule.customRegex, undefined);
	if (rule.customRegex !== undefined) return custom === null ? { type: 'string' } : { type: 'string', pattern: custom };
	const symbol = typeof rule.currencySymbol === 'string' ? rule.currencySymbol : null;
	const symbolPart = symbol === null ? '' : `${escapeRegex(symbol)}${rule.symbolOptional === true ? '?' : ''}`;
	const thousands = typeof rule.thousandSeparator === 'string' ? rule.thousandSeparator : ',';
	const decimal = typeof rule.decimalSeparator === 'string' ? rule.decimalSeparator : '.';
	const pattern = CURRENCY_TEMPLATE.replace(/~1/g, symbolPart)
		.replace('~2', escapeRegex(thousands))
		.replace('~3', escapeRegex(decimal));
	return { type: 'string', pattern };
}

/** fastest-validator's luhn rule takes strings only (its README shows a number, its code rejects one); non-digits are skipped. */
export function luhnSchema(): JSONSchema {
	return { type: 'string', pattern: '[0-9]' };
}
