import { createRequire } from 'node:module';

/** A fastest-validator rule in object form: `{ type, ...options }`. */
export type FvRule = { type: string; [option: string]: unknown };

interface ShorthandParser {
	parseShortHand(text: string): Record<string, unknown>;
}

// Only its shorthand parser is used, so the grammar is exactly fastest-validator's own.
// Loaded with require: the package is CommonJS and its typings omit parseShortHand.
const FastestValidator = createRequire(import.meta.url)('fastest-validator') as new () => ShorthandParser;
const shorthandParser = new FastestValidator();

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Expands any rule form fastest-validator accepts into object form:
 * `'number|integer|min:1'`, `'string[]'`, an array of alternatives (a `multi`
 * rule, optional/nullable only when every alternative is), `{ $$type: 'object|optional', ...props }`,
 * or `{ type, ... }`. Returns a fresh object; the input is never mutated.
 * Anything else (an object without `type`, which fastest-validator itself
 * rejects) resolves to `null`.
 */
export function resolveRule(raw: unknown): FvRule | null {
	if (typeof raw === 'string') return parseShorthand(raw);
	if (Array.isArray(raw)) return multiOf(raw);
	if (!isPlainObject(raw)) return null;
	if (raw.$$type !== undefined) return objectFromDollarType(raw);
	if (typeof raw.type === 'string') return { ...raw, type: raw.type };
	return null;
}

function parseShorthand(text: string): FvRule {
	const parsed = shorthandParser.parseShortHand(text);
	return { ...parsed, type: String(parsed.type) };
}

function multiOf(alternatives: unknown[]): FvRule {
	const resolved = alternatives.map(resolveRule);
	const every = (flag: string): boolean =>
		resolved.length > 0 && resolved.every((rule) => rule !== null && rule[flag] === true);
	const rule: FvRule = { type: 'multi', rules: alternatives };
	if (every('optional')) rule.optional = true;
	if (every('nullable')) rule.nullable = true;
	return rule;
}

function objectFromDollarType(raw: Record<string, unknown>): FvRule | null {
	const { $$type, ...props } = raw;
	const base = resolveRule($$type);
	if (base === null) return null;
	return { ...base, props };
}
