/**
 * Shapes shared by the OpenAPI generator: what it reads (the moleculer
 * registry's service list, with our extra keys on each action) and what it
 * writes (an OpenAPI 3.1 document, whose schemas are JSON Schema 2020-12).
 */

import type { Role } from '../tenancy/roles.ts';
import type { WorkspaceOf } from '../workspace-state.ts';

/** A JSON Schema 2020-12 object (OpenAPI 3.1 schema objects are exactly this). */
export type JSONSchema = { [keyword: string]: unknown };

// ---------------------------------------------------------------- input side

/** One entry of an action's `rest`: moleculer-web's string or object form. */
export type RestDeclaration =
	| string
	| {
			method?: string;
			path?: string;
			/** Replaces the service base path for this route (moleculer-web). */
			basePath?: string;
			/** Absolute path under the gateway route, ignoring both base paths (moleculer-web). */
			fullPath?: string;
			/** `'multipart'` makes moleculer-web stream uploaded files into the action. */
			type?: string;
			[key: string]: unknown;
	  };

/** A declared response of one status code. */
export interface ResponseDescriptor {
	description?: string;
	schema?: JSONSchema;
	/** Defaults to `application/json`. */
	contentType?: string;
}

/**
 * `response` on an action: a bare JSON schema (the 200 body), or a map from
 * status code to a JSON schema or a {@link ResponseDescriptor}.
 */
export type ResponseDeclaration = JSONSchema | Record<number, JSONSchema | ResponseDescriptor>;

/** The keys we add to a moleculer action schema; plain JSON, so they cross the transporter. */
export interface ActionDocKeys {
	response?: ResponseDeclaration;
	summary?: string;
	description?: string;
	tags?: string[];
	/** `false` marks a public route: no bearer token (`security: []`). */
	/** false: public route; 'worker': authenticated with the deployment's WORKER_TOKEN */
	auth?: false | 'worker';
	/** the least role of the caller (see kernel/tenancy/roles.ts); left out: viewer for GET, member otherwise */
	role?: Role;
	/** the workspace(s) a write lands in, refused when archived (kernel/workspace-state.ts); a function, so it stays on the node serving the action */
	workspaceOf?: WorkspaceOf;
	deprecated?: boolean;
	/** Every route of this action takes a `multipart/form-data` upload. */
	multipart?: boolean;
	/**
	 * Whether the route honours `Idempotency-Key` (kernel/idempotency/declaration.ts derives it
	 * for a POST answering 201 or 202): `false` opts out, `true` opts in, `{ scope_param }` opts a
	 * public route in with keys scoped to that path parameter, `'inline'` opts in with the claim
	 * taken inside the action's own write (kernel/idempotency/inline.ts).
	 */
	idempotency?: boolean | 'inline' | { scope_param: string };
	/**
	 * Where a 201's `Location` points when `<request path>/<id>` is no route of the created
	 * resource: a path under /api/v1 whose `{field}` parts are filled from the answer, e.g. `/tasks/{id}`.
	 */
	location?: string;
}

/** An action as `registry.getServiceList({ withActions: true })` returns it. */
export interface ActionInfo extends ActionDocKeys {
	name: string;
	rawName?: string;
	rest?: RestDeclaration | RestDeclaration[] | null;
	params?: unknown;
	visibility?: string;
	[key: string]: unknown;
}

/** A service as `registry.getServiceList({ withActions: true, grouping: true })` returns it. */
export interface ServiceInfo {
	name: string;
	fullName?: string;
	version?: string | number;
	settings?: { rest?: string | string[] | null; [key: string]: unknown };
	metadata?: { [key: string]: unknown };
	actions?: { [fullActionName: string]: ActionInfo };
}

// --------------------------------------------------------------- output side

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

export interface ReferenceObject {
	$ref: string;
	summary?: string;
	description?: string;
}

export interface ParameterObject {
	name: string;
	in: 'path' | 'query' | 'header' | 'cookie';
	required?: boolean;
	description?: string;
	deprecated?: boolean;
	style?: string;
	explode?: boolean;
	schema?: JSONSchema;
	[extension: `x-${string}`]: unknown;
}

export interface MediaTypeObject {
	schema?: JSONSchema;
	example?: unknown;
	examples?: { [name: string]: unknown };
	encoding?: { [property: string]: { contentType?: string; [key: string]: unknown } };
}

export interface RequestBodyObject {
	description?: string;
	required?: boolean;
	content: { [mediaType: string]: MediaTypeObject };
}

export interface ResponseObject {
	description: string;
	headers?: { [name: string]: unknown };
	content?: { [mediaType: string]: MediaTypeObject };
}

export type SecurityRequirement = { [scheme: string]: string[] };

export interface OperationObject {
	operationId?: string;
	summary?: string;
	description?: string;
	tags?: string[];
	deprecated?: boolean;
	parameters?: (ParameterObject | ReferenceObject)[];
	requestBody?: RequestBodyObject | ReferenceObject;
	responses: { [status: string]: ResponseObject | ReferenceObject };
	security?: SecurityRequirement[];
	[extension: `x-${string}`]: unknown;
}

export type PathItem = { [method in HttpMethod]?: OperationObject } & {
	summary?: string;
	description?: string;
	parameters?: (ParameterObject | ReferenceObject)[];
};

export interface TagObject {
	name: string;
	description?: string;
}

export interface OpenApiDocument {
	openapi: '3.1.0';
	info: { title: string; version: string; description?: string };
	paths: { [path: string]: PathItem };
	components: {
		schemas: { [name: string]: JSONSchema };
		responses: { [name: string]: ResponseObject };
		securitySchemes: { [name: string]: { type: string; scheme?: string; bearerFormat?: string; description?: string } };
	};
	security: SecurityRequirement[];
	tags: TagObject[];
}
