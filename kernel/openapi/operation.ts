/** One OpenAPI operation for one method and path of an action's route. */
import { requiredRole } from '../tenancy/roles.ts';
import { isPlainObject } from './fv-rule.ts';
import { fastestToJsonSchema } from './fv-to-json-schema.ts';
import { declaredResponses, errorResponseRefs } from './responses.ts';
import { keyScopeOf } from '../idempotency/declaration.ts';
import { IDEMPOTENCY_HEADER, MAX_KEY_LENGTH } from '../idempotency/header.ts';
import type { ActionRoute, PathVariant } from './rest-routes.ts';
import type {
	ActionInfo,
	HttpMethod,
	JSONSchema,
	OperationObject,
	ParameterObject,
	RequestBodyObject,
	ServiceInfo,
} from './types.ts';

const QUERY_METHODS = new Set<HttpMethod>(['get', 'delete', 'head', 'options']);
const UPLOAD_FIELD: JSONSchema = {
	type: 'string',
	format: 'binary',
	contentMediaType: 'application/octet-stream',
	description: 'The uploaded file.',
};

export interface OperationInput {
	service: ServiceInfo;
	action: ActionInfo;
	route: ActionRoute;
	variant: PathVariant;
	method: HttpMethod;
	operationId: string;
}

/** The params as an object schema split by property, or `null` when params are a single non-object rule. */
function splitParams(params: unknown): { properties: Record<string, JSONSchema>; required: Set<string>; strict: boolean } | null {
	const schema = fastestToJsonSchema(params);
	if (schema.type !== 'object') return Object.keys(schema).length === 0 ? { properties: {}, required: new Set(), strict: false } : null;
	const properties = isPlainObject(schema.properties) ? (schema.properties as Record<string, JSONSchema>) : {};
	const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
	return { properties, required, strict: schema.additionalProperties === false };
}

function pathParameter(name: string, schema: JSONSchema | undefined, wildcard: boolean): ParameterObject {
	const parameter: ParameterObject = { name, in: 'path', required: true, schema: schema ?? { type: 'string' } };
	const description = typeof schema?.description === 'string' ? schema.description : undefined;
	const note = wildcard ? 'Matches the rest of the path; may contain `/`.' : undefined;
	const text = [description, note].filter(Boolean).join(' ');
	if (text) parameter.description = text;
	return parameter;
}

function queryParameter(name: string, schema: JSONSchema, required: boolean): ParameterObject {
	const parameter: ParameterObject = { name, in: 'query', required, schema };
	if (typeof schema.description === 'string') parameter.description = schema.description;
	// moleculer-web parses the query string with qs, which reads `a[b]=1` as `{ a: { b: '1' } }`.
	const types = Array.isArray(schema.type) ? schema.type : [schema.type];
	if (types.includes('object')) {
		parameter.style = 'deepObject';
		parameter.explode = true;
	}
	return parameter;
}

function objectBody(properties: Record<string, JSONSchema>, required: string[], strict: boolean): JSONSchema {
	const schema: JSONSchema = { type: 'object', properties };
	if (required.length > 0) schema.required = required;
	if (strict) schema.additionalProperties = false;
	return schema;
}

function multipartBody(fields: Record<string, JSONSchema>, required: string[]): RequestBodyObject {
	const schema = objectBody({ file: UPLOAD_FIELD, ...fields }, ['file', ...required], false);
	return { required: true, content: { 'multipart/form-data': { schema } } };
}

/** Path parameters, then query parameters or a request body, from the action's `params`. */
function requestParts(input: OperationInput): Pick<OperationObject, 'parameters' | 'requestBody'> {
	const { action, route, variant, method } = input;
	const split = splitParams(action.params);
	const parameters: ParameterObject[] = variant.params.map((name) =>
		pathParameter(name, split?.properties[name], variant.wildcards.includes(name)),
	);
	const parts: Pick<OperationObject, 'parameters' | 'requestBody'> = {};
	if (split === null) {
		// A `$$root` rule that is not an object: the whole body is that value.
		if (!QUERY_METHODS.has(method)) {
			parts.requestBody = { required: true, content: { 'application/json': { schema: fastestToJsonSchema(action.params) } } };
		}
		if (parameters.length > 0) parts.parameters = parameters;
		return parts;
	}
	// Names starting with `$` ($filename, $mimetype, ...) are filled in by the gateway, not sent by clients.
	const remaining = Object.entries(split.properties).filter(
		([name]) => !route.pathParamNames.has(name) && !name.startsWith('$'),
	);
	const fields = Object.fromEntries(remaining);
	const required = remaining.map(([name]) => name).filter((name) => split.required.has(name));
	if (route.multipart) {
		parts.requestBody = multipartBody(fields, required);
	} else if (QUERY_METHODS.has(method)) {
		for (const [name, schema] of remaining) parameters.push(queryParameter(name, schema, split.required.has(name)));
	} else if (remaining.length > 0) {
		parts.requestBody = {
			required: required.length > 0,
			content: { 'application/json': { schema: objectBody(fields, required, split.strict) } },
		};
	}
	if (parameters.length > 0) parts.parameters = parameters;
	return parts;
}

const IDEMPOTENCY_KEY_PARAMETER: ParameterObject = {
	name: IDEMPOTENCY_HEADER,
	in: 'header',
	required: false,
	description:
		'Makes a retry safe (IETF HTTPAPI Idempotency-Key draft): the same key with the same request within the key\'s lifetime (24 h by default) replays the first response with `Idempotent-Replayed: true` and no second effect; another request under the key is a 422, one while the first still runs a 409. An sf-string, e.g. `"8e03978e-40d5-43e8-bc93-6894a57f9324"`.',
	schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH + 2 },
};
const LOCATION_HEADER = { description: 'The created resource (or, when it has no route of its own, the collection listing it).', schema: { type: 'string', format: 'uri-reference' } };
const REPLAYED_HEADER = { description: 'Present (`true`) when this is the replayed first response to the request\'s Idempotency-Key.', schema: { type: 'string', enum: ['true'] } };

/** `Location` on a 201, `Idempotent-Replayed` on each success of a route that takes a key. */
function withResponseHeaders(responses: OperationObject['responses'], idempotent: boolean): void {
	for (const [status, response] of Object.entries(responses)) {
		if (!/^2\d\d$/.test(status) || '$ref' in response) continue;
		const headers: Record<string, unknown> = { ...response.headers };
		if (status === '201') headers.Location = LOCATION_HEADER;
		if (idempotent) headers['Idempotent-Replayed'] = REPLAYED_HEADER;
		if (Object.keys(headers).length > 0) response.headers = headers;
	}
}

function responsesOf(action: ActionInfo, isPublic: boolean, idempotent: boolean): OperationObject['responses'] {
	const responses: OperationObject['responses'] = declaredResponses(action.response);
	withResponseHeaders(responses, idempotent);
	for (const [status, ref] of Object.entries(errorResponseRefs(isPublic))) {
		if (!(status in responses)) responses[status] = ref;
	}
	return responses;
}

export function buildOperation(input: OperationInput): OperationObject {
	const { service, action } = input;
	const isPublic = action.auth === false;
	const tags = Array.isArray(action.tags) && action.tags.every((tag) => typeof tag === 'string') ? action.tags : [service.name];
	const operation: OperationObject = { operationId: input.operationId, tags, responses: {} };
	if (typeof action.summary === 'string') operation.summary = action.summary;
	if (typeof action.description === 'string') operation.description = action.description;
	if (action.deprecated === true) operation.deprecated = true;
	Object.assign(operation, requestParts(input));
	const idempotent = keyScopeOf(action, input.method.toUpperCase()) !== undefined;
	if (idempotent) operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER];
	operation.responses = responsesOf(action, isPublic, idempotent);
	if (isPublic) operation.security = [];
	if (action.auth === 'worker') operation.security = [{ workerToken: [] }];
	else if (!isPublic) operation['x-required-role'] = requiredRole(action, input.method);
	operation['x-moleculer-action'] = action.name;
	return operation;
}
