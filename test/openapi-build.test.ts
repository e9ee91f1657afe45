import test from 'ava';
import { ServiceBroker, type ServiceSchema } from 'moleculer';
import ApiGateway from 'moleculer-web';
import '../kernel/openapi/action-schema.ts';
import { buildOpenApi } from '../kernel/openapi/build.ts';
import { toOpenApiPaths } from '../kernel/openapi/rest-routes.ts';
import type { HttpMethod, OpenApiDocument, OperationObject, ParameterObject, PathItem, ServiceInfo } from '../kernel/openapi/types.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';

const ok = (): unknown => ({});
// Not a literal: moleculer-web's RestSchema type does not list `type`, which its Alias honours.
const multipartRoute = { method: 'POST' as const, path: '/:id/attachments', type: 'multipart' };
const BASE = '/api/v1';
const LIST_RESPONSE = { type: 'object', properties: { items: { type: 'array' }, total: { type: 'integer' } }, required: ['items', 'total'] };

const tasks: ServiceSchema = {
	name: 'tasks',
	metadata: { description: 'Work items' },
	actions: {
		list: {
			rest: 'GET /',
			params: {
				limit: 'number|integer|min:1|max:200|optional|convert',
				status: { type: 'enum', values: ['todo', 'done'], optional: true, description: 'Only this status' },
				filter: { type: 'object', optional: true, props: { q: 'string' } },
			},
			response: LIST_RESPONSE,
			handler: ok,
		},
		create: { rest: 'POST /', params: { title: 'string|min:1', priority: 'number|integer|min:1|max:5|optional', $$strict: true }, handler: ok },
		get: { rest: 'GET /:id', params: { id: 'uuid' }, handler: ok },
		move: {
			rest: 'POST /:id/move',
			params: { id: 'uuid', to: { type: 'enum', values: ['todo', 'doing', 'done'] }, note: 'string|optional' },
			summary: 'Move a task',
			description: 'Changes the status of a task.',
			tags: ['Tasks'],
			response: {
				200: { description: 'Moved', schema: { type: 'object', properties: { status: { type: 'string' } } } },
				409: { description: 'Illegal move', schema: { $ref: '#/components/schemas/Problem' }, contentType: 'application/problem+json' },
			},
			handler: ok,
		},
		update: { rest: ['PUT /:id', 'PATCH /:id'], params: { id: 'string', title: 'string|optional' }, handler: ok },
		history: { rest: 'GET /:id/history{/:page}', params: { id: 'string', page: 'number|integer|optional|convert', limit: 'number|min:1|max:100|optional|convert' }, handler: ok },
		attach: {
			rest: multipartRoute,
			params: { id: 'string', $filename: 'string|optional', caption: 'string|optional' },
			handler: ok,
		},
		import: { rest: 'POST /import', multipart: true, handler: ok },
		remove: { rest: 'DELETE /:id', role: 'admin', params: { id: 'string' }, response: { 204: { description: 'Deleted' } }, deprecated: true, handler: ok },
		secret: { rest: 'GET /secret', visibility: 'public', handler: ok },
		notRouted: { params: { x: 'string' }, handler: ok },
	},
};

const webhooks: ServiceSchema = {
	name: 'webhooks',
	settings: { rest: '/hooks' },
	actions: { receive: { rest: 'POST /:slug', auth: false, params: { slug: 'string', payload: 'object' }, handler: ok } },
};
const reports: ServiceSchema = {
	name: 'reports',
	version: 2,
	actions: { usage: { rest: 'GET /usage', params: { days: 'number|integer|min:1|max:365|default:30|convert' }, handler: ok } },
};
const catalog: ServiceSchema = { name: 'catalog', settings: { rest: ['/catalog', '/shop'] }, actions: { items: { rest: 'GET /items', handler: ok } } };
const internal: ServiceSchema = { name: '$internal', actions: { peek: { rest: 'GET /peek', handler: ok } } };

const HEALTH: Record<string, PathItem> = {
	'/health': { get: { operationId: 'health', tags: ['kernel'], responses: { '200': { description: 'Alive' } } } },
};

/** The parts of moleculer-web's service instance used to regenerate its aliases now, not after its debounce. */
interface GatewayInternals {
	routes: { opts: { autoAliases?: boolean } }[];
	regenerateAutoAliases(route: unknown): void;
}

interface Fixture {
	doc: OpenApiDocument;
	services: ServiceInfo[];
	gatewayRoutes: Set<string>;
}

async function startFixture(): Promise<Fixture> {
	const broker = new ServiceBroker({ logger: false });
	// The real gateway, to check the document against the aliases it serves. `$` services are
	// blacklisted, as the kernel's gateway must do (moleculer-web itself would alias them).
	const gateway = broker.createService({
		name: 'api',
		mixins: [ApiGateway],
		settings: { server: false, routes: [{ path: BASE, autoAliases: true, blacklist: [/^\$/] }] },
	}) as unknown as GatewayInternals;
	for (const schema of [tasks, webhooks, reports, catalog, internal]) broker.createService(schema);
	await broker.start();
	try {
		const services = broker.registry.getServiceList({ withActions: true, grouping: true });
		const doc = buildOpenApi({ services, basePath: BASE, info: { title: 'Test', version: '1.0.0' }, extraPaths: HEALTH });
		for (const route of gateway.routes) if (route.opts.autoAliases) gateway.regenerateAutoAliases(route);
		const aliases: { methods: string; fullPath: string }[] = await broker.call('api.listAliases');
		const gatewayRoutes = new Set(
			aliases.flatMap((alias) => {
				const methods = alias.methods === '*' ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : [alias.methods];
				return methods.flatMap((method) => toOpenApiPaths(alias.fullPath).map((v) => `${method} ${v.path}`));
			}),
		);
		return { doc, services, gatewayRoutes };
	} finally {
		await broker.stop();
	}
}

let fixture: Fixture;
test.before(async () => {
	fixture = await startFixture();
});

function operation(path: string, method: keyof PathItem): OperationObject {
	const found = fixture.doc.paths[path]?.[method as 'get'];
	if (!found) throw new Error(`no ${method} ${path} in ${Object.keys(fixture.doc.paths).join(', ')}`);
	return found;
}
const METHODS: HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch'];
const allOperations = (): OperationObject[] =>
	Object.values(fixture.doc.paths).flatMap((item) => METHODS.flatMap((method) => (item[method] ? [item[method]] : [])));
const params = (op: OperationObject): ParameterObject[] => (op.parameters ?? []) as ParameterObject[];
const bodySchema = (op: OperationObject, type = 'application/json'): unknown =>
	op.requestBody && 'content' in op.requestBody ? op.requestBody.content[type]?.schema : undefined;

test('documents exactly the routes the moleculer-web gateway serves', (t) => {
	const documented = new Set<string>();
	for (const [path, item] of Object.entries(fixture.doc.paths)) {
		for (const method of METHODS) {
			if (item[method]?.['x-moleculer-action']) documented.add(`${method.toUpperCase()} ${path}`);
		}
	}
	t.deepEqual([...documented].sort(), [...fixture.gatewayRoutes].sort());
	t.true(documented.has('POST /api/v1/tasks/{id}/move'));
});

test('skips non-published actions, actions without rest and $ services', (t) => {
	const paths = Object.keys(fixture.doc.paths);
	t.false(paths.some((p) => p.includes('secret') || p.includes('peek') || p.includes('notRouted')));
	const actions = allOperations().map((op) => op['x-moleculer-action']);
	t.false(actions.includes('tasks.notRouted'));
	t.true(fixture.services.some((s) => s.name === '$internal'), 'the $ service is in the registry, so skipping it is tested');
});

test('GET: path parameters and query parameters from params', (t) => {
	const get = operation('/api/v1/tasks/{id}', 'get');
	t.deepEqual(params(get), [{ name: 'id', in: 'path', required: true, schema: params(get)[0].schema }]);
	t.is((params(get)[0].schema as { format?: string }).format, 'uuid');
	const list = operation('/api/v1/tasks', 'get');
	t.deepEqual(params(list), [
		{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200 } },
		{ name: 'status', in: 'query', required: false, description: 'Only this status', schema: { enum: ['todo', 'done'], description: 'Only this status' } },
		{
			name: 'filter', in: 'query', required: false, style: 'deepObject', explode: true,
			schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
		},
	]);
	t.is(list.requestBody, undefined);
	t.deepEqual(list.responses['200'], { description: 'OK', content: { 'application/json': { schema: LIST_RESPONSE } } });
	t.deepEqual(operation('/api/v1/tasks/{id}', 'get').responses['200'], {
		description: 'Success (the response body is not declared).',
		content: { 'application/json': { schema: {} } },
	});
	const usage = operation('/api/v1/v2/reports/usage', 'get');
	t.deepEqual(params(usage), [{ name: 'days', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 365, default: 30 } }]);
});

test('POST: a JSON body of the params that are not in the path', (t) => {
	const move = operation('/api/v1/tasks/{id}/move', 'post');
	t.is(move.operationId, 'tasks.move');
	t.is(move.summary, 'Move a task');
	t.is(move.description, 'Changes the status of a task.');
	t.deepEqual(move.tags, ['Tasks']);
	t.deepEqual(params(move).map((p) => [p.name, p.in, p.required]), [['id', 'path', true]]);
	t.deepEqual(move.requestBody, {
		required: true,
		content: {
			'application/json': {
				schema: { type: 'object', properties: { to: { enum: ['todo', 'doing', 'done'] }, note: { type: 'string' } }, required: ['to'] },
			},
		},
	});
	t.deepEqual(move.responses['200'], { description: 'Moved', content: { 'application/json': { schema: { type: 'object', properties: { status: { type: 'string' } } } } } });
	t.deepEqual(move.responses['409'], { description: 'Illegal move', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } });
	t.deepEqual(move.responses['422'], { $ref: '#/components/responses/UnprocessableContent' });
	t.deepEqual(move.responses['401'], { $ref: '#/components/responses/Unauthorized' });
	t.is(move.security, undefined, 'the top-level bearer requirement applies');
	t.deepEqual(move.responses['403'], { $ref: '#/components/responses/Forbidden' });
	t.is(move['x-required-role'], 'member', 'a write needs a member unless the action says otherwise');
	t.is(operation('/api/v1/tasks/{id}', 'get')['x-required-role'], 'viewer', 'a read is for every role');
	t.is(operation('/api/v1/tasks/{id}', 'delete')['x-required-role'], 'admin', 'the action\'s own role wins');
	const create = operation('/api/v1/tasks', 'post');
	t.deepEqual(bodySchema(create), {
		type: 'object',
		properties: { title: { type: 'string', minLength: 1 }, priority: { type: 'integer', minimum: 1, maximum: 5 } },
		required: ['title'],
		additionalProperties: false,
	});
	const update = operation('/api/v1/tasks/{id}', 'patch');
	t.is((update.requestBody as { required: boolean }).required, false, 'no required body property');
});

test('several routes of one action get unique operationIds', (t) => {
	t.is(operation('/api/v1/tasks/{id}', 'put').operationId, 'tasks.update');
	t.is(operation('/api/v1/tasks/{id}', 'patch').operationId, 'tasks.update_2');
	t.is(operation('/api/v1/catalog/items', 'get').operationId, 'catalog.items');
	t.is(operation('/api/v1/shop/items', 'get').operationId, 'catalog.items_2');
	const ids = allOperations().map((op) => op.operationId);
	t.is(new Set(ids).size, ids.length);
});

test('an optional path segment gives both paths', (t) => {
	const short = operation('/api/v1/tasks/{id}/history', 'get');
	const long = operation('/api/v1/tasks/{id}/history/{page}', 'get');
	t.deepEqual(params(short).map((p) => `${p.in}:${p.name}`), ['path:id', 'query:limit']);
	t.deepEqual(params(long).map((p) => `${p.in}:${p.name}`), ['path:id', 'path:page', 'query:limit']);
	t.deepEqual(params(long)[1], { name: 'page', in: 'path', required: true, schema: { type: 'integer' } });
});

test('multipart actions take a multipart/form-data body with a binary file', (t) => {
	const attach = operation('/api/v1/tasks/{id}/attachments', 'post');
	t.deepEqual(attach.requestBody, {
		required: true,
		content: {
			'multipart/form-data': {
				schema: {
					type: 'object',
					properties: {
						file: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream', description: 'The uploaded file.' },
						caption: { type: 'string' },
					},
					required: ['file'],
				},
			},
		},
	});
	const upload = operation('/api/v1/tasks/import', 'post');
	t.truthy(bodySchema(upload, 'multipart/form-data'));
});

test('public actions have security [] and no 401; declared 204 has no body', (t) => {
	const receive = operation('/api/v1/hooks/{slug}', 'post');
	t.deepEqual(receive.security, []);
	t.false('401' in receive.responses);
	t.false('403' in receive.responses);
	t.false('x-required-role' in receive);
	t.deepEqual(receive.tags, ['webhooks']);
	const remove = operation('/api/v1/tasks/{id}', 'delete');
	t.deepEqual(remove.responses['204'], { description: 'Deleted' });
	t.false('200' in remove.responses);
	t.true(remove.deprecated);
	const health = operation('/health', 'get');
	t.deepEqual(health.security, [], 'extra paths are public by default');
});

test('document-level security, components and tags', async (t) => {
	const { doc } = fixture;
	t.is(doc.openapi, '3.1.0');
	t.deepEqual(doc.security, [{ bearerAuth: [] }]);
	t.like(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer' });
	t.deepEqual(Object.keys(doc.components.schemas), ['Problem']);
	t.deepEqual(
		Object.keys(doc.components.responses).sort(),
		['BadRequest', 'Conflict', 'Forbidden', 'InternalServerError', 'NotFound', 'PayloadTooLarge', 'TooManyRequests', 'Unauthorized', 'UnprocessableContent', 'UnsupportedMediaType'],
	);
	t.deepEqual(doc.components.responses.NotFound.content, { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
	t.deepEqual(doc.tags.find((tag) => tag.name === 'tasks'), { name: 'tasks', description: 'Work items' });
	t.true(doc.tags.some((tag) => tag.name === 'Tasks'));
	await t.notThrowsAsync(validateOpenApi(doc));
});

test('a broken document is rejected by the validator', async (t) => {
	const doc = structuredClone(fixture.doc);
	const move = doc.paths['/api/v1/tasks/{id}/move'].post!;
	move.parameters = [];
	doc.paths['/api/v1/tasks'].get!.operationId = 'tasks.move';
	delete (doc.info as { title?: string }).title;
	const error = await t.throwsAsync(validateOpenApi(doc));
	t.regex(error.message, /path parameter 'id' is not declared/);
	t.regex(error.message, /operationId 'tasks.move' is also used/);
	t.regex(error.message, /Swagger schema validation failed[\s\S]*title/);
});
