/**
 * Checks swagger-parser does not make on an OpenAPI 3.x document (its semantic
 * checks cover Swagger 2.0 only, and its 3.1 meta-schema accepts any object as a
 * schema): unique operationIds, path templates matched by path parameters, and
 * every schema object reachable, for meta-schema validation by the caller.
 */
import { isPlainObject } from './fv-rule.ts';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = Record<string, unknown>;

/** A JSON Pointer reference token (`/` and `~` escaped). */
function token(name: string): string {
	return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function asObject(value: unknown): Json {
	return isPlainObject(value) ? value : {};
}

function asArray(value: unknown): unknown[] {
	return Array.isArray(value) ? value : [];
}

interface Located {
	at: string;
	schema: unknown;
}

function mediaSchemas(content: unknown, at: string): Located[] {
	return Object.entries(asObject(content)).flatMap(([mediaType, media]) => {
		const schema = asObject(media).schema;
		return schema === undefined ? [] : [{ at: `${at}/content/${token(mediaType)}/schema`, schema }];
	});
}

function parameterSchemas(parameters: unknown, at: string): Located[] {
	return asArray(parameters).flatMap((parameter, index) => {
		const schema = asObject(parameter).schema;
		return schema === undefined ? [] : [{ at: `${at}/parameters/${index}/schema`, schema }];
	});
}

function operationsOf(doc: unknown): { at: string; path: string; operation: Json; pathItem: Json }[] {
	return Object.entries(asObject(asObject(doc).paths)).flatMap(([path, item]) =>
		HTTP_METHODS.flatMap((method) => {
			const operation = asObject(item)[method];
			return isPlainObject(operation) ? [{ at: `#/paths/${token(path)}/${method}`, path, operation, pathItem: asObject(item) }] : [];
		}),
	);
}

/** Every schema object in the document, with its location. */
export function schemasOf(doc: unknown): Located[] {
	const components = asObject(asObject(doc).components);
	const found: Located[] = [];
	for (const [name, schema] of Object.entries(asObject(components.schemas))) {
		found.push({ at: `#/components/schemas/${token(name)}`, schema });
	}
	for (const [name, response] of Object.entries(asObject(components.responses))) {
		found.push(...mediaSchemas(asObject(response).content, `#/components/responses/${token(name)}`));
	}
	for (const [path, item] of Object.entries(asObject(asObject(doc).paths))) {
		found.push(...parameterSchemas(asObject(item).parameters, `#/paths/${token(path)}`));
	}
	for (const { at, operation } of operationsOf(doc)) {
		found.push(...parameterSchemas(operation.parameters, at));
		found.push(...mediaSchemas(asObject(operation.requestBody).content, `${at}/requestBody`));
		for (const [status, response] of Object.entries(asObject(operation.responses))) {
			found.push(...mediaSchemas(asObject(response).content, `${at}/responses/${status}`));
		}
	}
	return found;
}

/** Every `pattern` in a schema must compile as the `u`-flag ECMAScript regex JSON Schema validators use. */
export function patternProblems(schema: unknown, at: string): string[] {
	if (Array.isArray(schema)) return schema.flatMap((item, index) => patternProblems(item, `${at}/${index}`));
	if (!isPlainObject(schema)) return [];
	const problems: string[] = [];
	for (const [key, value] of Object.entries(schema)) {
		if (key === 'pattern' && typeof value === 'string') {
			try {
				new RegExp(value, 'u');
			} catch (error) {
				problems.push(`${at}/pattern: ${(error as Error).message}`);
			}
		} else if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples') {
			problems.push(...patternProblems(value, `${at}/${token(key)}`));
		}
	}
	return problems;
}

/** A numeric schema, or an array of them (a repeated query value): its bounds, by location. */
function numericSchemas(schema: Json, at: string): { at: string; schema: Json }[] {
	const types = asArray(schema.type).length ? asArray(schema.type) : [schema.type];
	if (types.includes('integer') || types.includes('number')) return [{ at, schema }];
	return types.includes('array') && isPlainObject(schema.items) ? numericSchemas(schema.items, `${at}/items`) : [];
}

/**
 * Every numeric query parameter has both bounds (kernel/query-integer.ts declares them): a
 * client's `1e99` or `-1` is then a 422 naming it, never a number PostgreSQL refuses.
 */
function unboundedQueryNumbers(at: string, operation: Json): string[] {
	return asArray(operation.parameters)
		.map(asObject)
		.filter((parameter) => parameter.in === 'query')
		.flatMap((parameter) => numericSchemas(asObject(parameter.schema), `${at}: query parameter '${String(parameter.name)}'`))
		.filter(({ schema }) => typeof schema.minimum !== 'number' || typeof schema.maximum !== 'number')
		.map(({ at: where }) => `${where} is a number without both a minimum and a maximum`);
}

/**
 * Duplicate operationIds, mismatches between `{name}` in a path and its `in: path` parameters,
 * and numeric query parameters without both bounds.
 */
export function semanticProblems(doc: unknown): string[] {
	const problems: string[] = [];
	const operationIds = new Map<string, string>();
	for (const { at, path, operation, pathItem } of operationsOf(doc)) {
		const id = operation.operationId;
		if (typeof id === 'string') {
			const previous = operationIds.get(id);
			if (previous !== undefined) problems.push(`${at}: operationId '${id}' is also used by ${previous}`);
			else operationIds.set(id, at);
		}
		const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
		const declared = [...asArray(pathItem.parameters), ...asArray(operation.parameters)]
			.map(asObject)
			.filter((parameter) => parameter.in === 'path')
			.map((parameter) => String(parameter.name));
		for (const name of templated) {
			if (!declared.includes(name)) problems.push(`${at}: path parameter '${name}' is not declared`);
		}
		for (const name of declared) {
			if (!templated.includes(name)) problems.push(`${at}: path parameter '${name}' is not in the path`);
		}
		problems.push(...unboundedQueryNumbers(at, operation));
	}
	return problems;
}
