/**
 * The HTTP routes moleculer-web's autoAliases derive from an action's `rest`,
 * computed the same way (`regenerateAutoAliases`, `parseActionRestString`,
 * `parseActionRestObject` and the `Alias` constructor in moleculer-web/src),
 * then written as OpenAPI path templates.
 */
import { createRequire } from 'node:module';
import { isPlainObject } from './fv-rule.ts';
import type { ActionInfo, HttpMethod, RestDeclaration, ServiceInfo } from './types.ts';

interface PathToken {
	type: 'text' | 'param' | 'wildcard' | 'group';
	value?: string;
	name?: string;
	tokens?: PathToken[];
}
interface PathToRegexp {
	parse(path: string): { tokens: PathToken[] };
}

// The copy of path-to-regexp that moleculer-web itself matches requests with (it is not our own dependency).
const requireFromGateway = createRequire(import.meta.resolve('moleculer-web'));
const pathToRegexp = requireFromGateway('path-to-regexp') as PathToRegexp;

/** One concrete OpenAPI path of a route (an optional `{/:x}` part yields two). */
export interface PathVariant {
	/** OpenAPI path template, e.g. `/api/v1/tasks/{id}/move`. */
	path: string;
	/** Names of the path parameters, in order. */
	params: string[];
	/** Path parameters matched by a `*name` wildcard (they may contain `/`). */
	wildcards: string[];
}

export interface ActionRoute {
	methods: HttpMethod[];
	variants: PathVariant[];
	/** Names of every parameter some variant takes from the path. */
	pathParamNames: Set<string>;
	multipart: boolean;
}

const METHODS: Record<string, HttpMethod> = {
	GET: 'get',
	POST: 'post',
	PUT: 'put',
	PATCH: 'patch',
	DELETE: 'delete',
	HEAD: 'head',
	OPTIONS: 'options',
};
// moleculer-web's `*` matches any method; these are the ones a client would use.
const ANY_METHOD: HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

const removeTrailingSlashes = (s: string): string => s.replace(/^\//, '').replace(/\/$/, '');
const addSlashes = (s: string): string => (s.startsWith('/') ? '' : '/') + s + (s.endsWith('/') ? '' : '/');
const normalizePath = (s: string): string => s.replace(/\/{2,}/g, '/');

function serviceFullName(service: ServiceInfo): string {
	if (service.fullName) return service.fullName;
	return service.version === undefined ? service.name : `v${service.version}.${service.name}`;
}

/** `settings.rest` (a string or each of an array), else the full name with dots as slashes. */
export function serviceBasePaths(service: ServiceInfo): string[] {
	const fallback = serviceFullName(service).replace(/\./g, '/');
	const rest = service.settings?.rest;
	const bases = typeof rest === 'string' ? [rest] : Array.isArray(rest) ? rest : [fallback];
	return bases.map((base) => addSlashes(typeof base === 'string' ? base : fallback));
}

interface RawAlias {
	method: string;
	path: string;
	fullPath?: string;
	type?: string;
}

function rawAlias(rest: RestDeclaration, action: ActionInfo, basePath: string): RawAlias | null {
	if (typeof rest === 'string') {
		const parts = rest.split(/\s+/);
		return rest.includes(' ') ? { method: parts[0], path: basePath + parts[1] } : { method: '*', path: basePath + rest };
	}
	if (!isPlainObject(rest)) return null;
	const rawName = action.rawName ?? action.name.split('.').pop() ?? action.name;
	return {
		method: typeof rest.method === 'string' ? rest.method : '*',
		path: (typeof rest.basePath === 'string' ? rest.basePath : basePath) + (rest.path ? String(rest.path) : rawName),
		fullPath: typeof rest.fullPath === 'string' ? rest.fullPath : undefined,
		type: typeof rest.type === 'string' ? rest.type : undefined,
	};
}

function gatewayFullPath(alias: RawAlias, gatewayPath: string): string {
	// Trimmed twice, as moleculer-web does (once in regenerateAutoAliases, once in the Alias constructor).
	const path = removeTrailingSlashes(removeTrailingSlashes(normalizePath(alias.path)));
	const full = alias.fullPath || addSlashes(gatewayPath) + path;
	return full !== '/' && full.endsWith('/') ? full.slice(0, -1) : full;
}

type FlatToken = { kind: 'text'; value: string } | { kind: 'param'; name: string; wildcard: boolean };

/** Every token sequence a path can match: each optional group present or absent. */
function expandGroups(tokens: PathToken[]): FlatToken[][] {
	let variants: FlatToken[][] = [[]];
	for (const token of tokens) {
		if (token.type === 'group') {
			const inner = expandGroups(token.tokens ?? []);
			variants = variants.flatMap((prefix) => [prefix, ...inner.map((tail) => [...prefix, ...tail])]);
			continue;
		}
		const flat: FlatToken =
			token.type === 'text'
				? { kind: 'text', value: token.value ?? '' }
				: { kind: 'param', name: token.name ?? '', wildcard: token.type === 'wildcard' };
		variants = variants.map((prefix) => [...prefix, flat]);
	}
	return variants;
}

/** A path-to-regexp v8 path as OpenAPI templates: `:id` -> `{id}`, `{/:name}` -> with and without. */
export function toOpenApiPaths(path: string): PathVariant[] {
	const seen = new Set<string>();
	const variants: PathVariant[] = [];
	for (const tokens of expandGroups(pathToRegexp.parse(path).tokens)) {
		let template = tokens.map((t) => (t.kind === 'text' ? t.value : `{${t.name}}`)).join('');
		template = normalizePath(template);
		if (template !== '/' && template.endsWith('/')) template = template.slice(0, -1);
		if (template === '') template = '/';
		if (seen.has(template)) continue;
		seen.add(template);
		const params = tokens.flatMap((t) => (t.kind === 'param' ? [t.name] : []));
		const wildcards = tokens.flatMap((t) => (t.kind === 'param' && t.wildcard ? [t.name] : []));
		variants.push({ path: template, params, wildcards });
	}
	return variants;
}

function methodsOf(method: string): HttpMethod[] {
	if (method === '*') return ANY_METHOD;
	// moleculer-web compares methods case-sensitively with the request's upper-case method.
	const known = METHODS[method];
	return known ? [known] : [];
}

/** The routes the gateway (mounted at `gatewayPath`, e.g. `/api/v1`) serves for one action. */
export function actionRoutes(service: ServiceInfo, action: ActionInfo, gatewayPath: string): ActionRoute[] {
	if (action.rest === undefined || action.rest === null) return [];
	const declarations = Array.isArray(action.rest) ? action.rest : [action.rest];
	const routes: ActionRoute[] = [];
	for (const basePath of serviceBasePaths(service)) {
		for (const declaration of declarations) {
			const alias = rawAlias(declaration, action, basePath);
			if (alias === null) continue;
			const methods = methodsOf(alias.method);
			if (methods.length === 0) continue;
			const variants = toOpenApiPaths(gatewayFullPath(alias, gatewayPath));
			routes.push({
				methods,
				variants,
				pathParamNames: new Set(variants.flatMap((variant) => variant.params)),
				multipart: alias.type === 'multipart' || action.multipart === true,
			});
		}
	}
	return routes;
}
