/** Success responses declared on actions, and the shared RFC 9457 error responses. */
import { STATUS_CODES } from 'node:http';
import { isPlainObject } from './fv-rule.ts';
import type { JSONSchema, ReferenceObject, ResponseDeclaration, ResponseObject } from './types.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
const JSON_CONTENT_TYPE = 'application/json';

/** RFC 9457 problem details as the gateway sends them; extension members are allowed. */
export const PROBLEM_SCHEMA: JSONSchema = {
	type: 'object',
	description: 'RFC 9457 problem details.',
	properties: {
		type: { type: 'string', format: 'uri-reference', description: 'Identifies the problem type.' },
		title: { type: 'string', description: 'Short, human-readable summary of the problem type.' },
		status: { type: 'integer', minimum: 100, maximum: 599, description: 'The HTTP status code.' },
		detail: { type: 'string', description: 'Explanation specific to this occurrence.' },
		code: { type: 'string', description: 'Stable UPPER_SNAKE error identifier.' },
		request_id: { type: 'string', description: 'Identifier of the request, for support and logs.' },
		errors: {
			type: 'array',
			description: 'The failing fields of a validation error.',
			items: {
				type: 'object',
				properties: {
					field: { type: 'string' },
					message: { type: 'string' },
					type: { type: 'string', description: 'The rule that failed.' },
					step_id: { type: 'string', description: 'The workflow step the problem is on (workflow definitions).' },
					pointer: { type: 'string', description: 'RFC 6901 pointer into the request body to the failing value, where the API can name it (workflow definitions: `/steps/2/config/url`).' },
				},
				required: ['field', 'message'],
			},
		},
	},
	required: ['type', 'title', 'status', 'code'],
};

/** Status code -> name under `components.responses`. */
const ERROR_RESPONSES: Record<string, { name: string; description: string }> = {
	'400': { name: 'BadRequest', description: 'The request is malformed (for example, invalid JSON).' },
	'401': { name: 'Unauthorized', description: 'Missing, invalid, expired or revoked bearer token.' },
	'403': { name: 'Forbidden', description: 'The caller\'s role is below the one the route needs (`x-required-role`; docs/roles.md).' },
	'404': { name: 'NotFound', description: 'The route or the resource does not exist.' },
	'409': { name: 'Conflict', description: 'The request conflicts with the current state (for example, an illegal move).' },
	'413': { name: 'PayloadTooLarge', description: 'The request body is too large.' },
	'415': { name: 'UnsupportedMediaType', description: 'The request body has an unsupported content type.' },
	'422': { name: 'UnprocessableContent', description: 'Validation failed; `errors` lists the failing fields.' },
	'429': { name: 'TooManyRequests', description: 'Rate limit exceeded.' },
	'500': { name: 'InternalServerError', description: 'Unexpected server error.' },
};

/** `components.responses`: one problem response per standard error status. */
export function errorResponseComponents(): Record<string, ResponseObject> {
	const components: Record<string, ResponseObject> = {};
	for (const { name, description } of Object.values(ERROR_RESPONSES)) {
		components[name] = {
			description,
			content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
		};
	}
	return components;
}

/** References to the standard error responses; 401 and 403 only where a bearer token is required. */
export function errorResponseRefs(isPublic: boolean): Record<string, ReferenceObject> {
	const refs: Record<string, ReferenceObject> = {};
	for (const [status, { name }] of Object.entries(ERROR_RESPONSES)) {
		if ((status === '401' || status === '403') && isPublic) continue;
		refs[status] = { $ref: `#/components/responses/${name}` };
	}
	return refs;
}

const BODYLESS_STATUSES = new Set(['204', '205', '304']);
const DESCRIPTOR_KEYS = new Set(['description', 'schema', 'contentType']);

function isStatusMap(declaration: Record<string, unknown>): boolean {
	const keys = Object.keys(declaration);
	return keys.length > 0 && keys.every((key) => /^[1-5]\d\d$/.test(key));
}

/** `{ description?, schema?, contentType? }` rather than a bare JSON schema. */
function isDescriptor(entry: Record<string, unknown>): boolean {
	const keys = Object.keys(entry);
	return keys.length > 0 && keys.every((key) => DESCRIPTOR_KEYS.has(key)) && (typeof entry.description === 'string' || 'schema' in entry || 'contentType' in entry);
}

function statusDescription(status: string): string {
	return STATUS_CODES[Number(status)] ?? `HTTP ${status}`;
}

function responseFor(status: string, entry: unknown): ResponseObject {
	const descriptor = isPlainObject(entry) && isDescriptor(entry) ? entry : { schema: entry };
	const description = typeof descriptor.description === 'string' ? descriptor.description : statusDescription(status);
	if (BODYLESS_STATUSES.has(status)) return { description };
	const contentType = typeof descriptor.contentType === 'string' ? descriptor.contentType : JSON_CONTENT_TYPE;
	const schema = isPlainObject(descriptor.schema) ? descriptor.schema : undefined;
	if (schema === undefined && descriptor.contentType === undefined) return { description };
	return { description, content: { [contentType]: schema === undefined ? {} : { schema } } };
}

/**
 * The success responses of an action's `response` declaration: a bare JSON
 * schema is the 200 body; a map from status code takes a schema or a
 * descriptor per status. Nothing declared gives a 200 whose body is not described.
 */
export function declaredResponses(declaration: ResponseDeclaration | undefined): Record<string, ResponseObject> {
	if (!isPlainObject(declaration)) {
		return { '200': { description: 'Success (the response body is not declared).', content: { [JSON_CONTENT_TYPE]: { schema: {} } } } };
	}
	if (!isStatusMap(declaration)) return { '200': responseFor('200', declaration) };
	const responses: Record<string, ResponseObject> = {};
	for (const [status, entry] of Object.entries(declaration)) responses[status] = responseFor(status, entry);
	return responses;
}
