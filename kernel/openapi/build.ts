/**
 * Builds the OpenAPI 3.1 document from the live moleculer registry, so a route
 * is in the document if and only if moleculer-web's autoAliases serve it.
 *
 *   const services = broker.registry.getServiceList({ withActions: true, grouping: true });
 *   const doc = buildOpenApi({ services, basePath: '/api/v1', info: { title, version } });
 */
import { buildOperation } from './operation.ts';
import { PROBLEM_SCHEMA, errorResponseComponents } from './responses.ts';
import { actionRoutes } from './rest-routes.ts';
import type { ActionInfo, HttpMethod, OpenApiDocument, OperationObject, PathItem, ServiceInfo, TagObject } from './types.ts';

export interface BuildOpenApiInput {
	services: ServiceInfo[];
	/** Where the gateway route that holds the auto-aliases is mounted, e.g. `/api/v1`. */
	basePath: string;
	info: { title: string; version: string; description?: string };
	/** The kernel's own routes (health, metrics, the document itself); public unless they say `security`. */
	extraPaths?: Record<string, PathItem>;
}

const HTTP_METHODS: HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** moleculer-web skips actions whose visibility is set to anything but `published`. */
function isServedOverHttp(action: ActionInfo): boolean {
	const published = action.visibility === undefined || action.visibility === null || action.visibility === 'published';
	return published && action.rest !== undefined && action.rest !== null;
}

function uniqueOperationId(actionName: string, taken: Set<string>): string {
	let id = actionName;
	for (let n = 2; taken.has(id); n++) id = `${actionName}_${n}`;
	taken.add(id);
	return id;
}

function addActionOperations(
	paths: Record<string, PathItem>,
	service: ServiceInfo,
	action: ActionInfo,
	basePath: string,
	operationIds: Set<string>,
): void {
	for (const route of actionRoutes(service, action, basePath)) {
		for (const variant of route.variants) {
			const item = (paths[variant.path] ??= {});
			for (const method of route.methods) {
				// Two actions on one method and path: moleculer-web serves the first alias, so it is the one documented.
				if (item[method] !== undefined) continue;
				const operationId = uniqueOperationId(action.name, operationIds);
				item[method] = buildOperation({ service, action, route, variant, method, operationId });
			}
		}
	}
}

function addExtraPaths(paths: Record<string, PathItem>, extraPaths: Record<string, PathItem>): void {
	for (const [path, extraItem] of Object.entries(extraPaths)) {
		const item: PathItem = (paths[path] ??= {});
		const { summary, description, parameters } = extraItem;
		Object.assign(item, summary === undefined ? {} : { summary }, description === undefined ? {} : { description });
		if (parameters !== undefined) item.parameters = parameters;
		for (const method of HTTP_METHODS) {
			const operation = extraItem[method];
			if (operation === undefined) continue;
			if (item[method] !== undefined) {
				throw new Error(`OpenAPI: the kernel route ${method.toUpperCase()} ${path} collides with an action route`);
			}
			const publicByDefault: OperationObject = operation.security === undefined ? { ...operation, security: [] } : operation;
			item[method] = publicByDefault;
		}
	}
}

function tagsOf(paths: Record<string, PathItem>, services: ServiceInfo[]): TagObject[] {
	const names = new Set<string>();
	for (const item of Object.values(paths)) {
		for (const method of HTTP_METHODS) for (const tag of item[method]?.tags ?? []) names.add(tag);
	}
	return [...names].sort().map((name) => {
		const description = services.find((service) => service.name === name)?.metadata?.description;
		return typeof description === 'string' ? { name, description } : { name };
	});
}

function sortedByPath(paths: Record<string, PathItem>): Record<string, PathItem> {
	const nonEmpty = Object.entries(paths).filter(([, item]) => HTTP_METHODS.some((method) => item[method] !== undefined));
	return Object.fromEntries(nonEmpty.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function buildOpenApi(input: BuildOpenApiInput): OpenApiDocument {
	const paths: Record<string, PathItem> = {};
	const operationIds = new Set<string>();
	for (const service of input.services) {
		// Internal services ($node, ...) and services without settings are never aliased by moleculer-web.
		if (service.name.startsWith('$') || !service.settings) continue;
		for (const action of Object.values(service.actions ?? {})) {
			if (isServedOverHttp(action)) addActionOperations(paths, service, action, input.basePath, operationIds);
		}
	}
	addExtraPaths(paths, input.extraPaths ?? {});
	const finalPaths = sortedByPath(paths);
	return {
		openapi: '3.1.0',
		info: { ...input.info },
		paths: finalPaths,
		components: {
			schemas: { Problem: structuredClone(PROBLEM_SCHEMA) },
			responses: errorResponseComponents(),
			securitySchemes: {
				bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API token: `Authorization: Bearer <token>`.' },
				workerToken: { type: 'http', scheme: 'bearer', description: 'The deployment\'s WORKER_TOKEN, for worker routes: `Authorization: Bearer <WORKER_TOKEN>`.' },
			},
		},
		security: [{ bearerAuth: [] }],
		tags: tagsOf(finalPaths, input.services),
	};
}
