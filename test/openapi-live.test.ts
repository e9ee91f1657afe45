import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestKernel, api, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';
import { OpenApiCache } from '../kernel/gateway/openapi-cache.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const OWNER = 'owner-token';

type Operation = { operationId?: string; security?: Record<string, string[]>[]; requestBody?: any; parameters?: any[] };
type PathItem = Partial<Record<(typeof METHODS)[number], Operation>>;
type OpenApiDoc = { openapi: string; paths: Record<string, PathItem | undefined>; security?: Record<string, string[]>[]; components: { securitySchemes: Record<string, any> } };

let kernel: TestKernel;
let dropDb: () => Promise<void>;
let tempRoot: string;

test.before(async () => {
  tempRoot = mkdtempSync(join(tmpdir(), 'wao-openapi-live-'));
  const db = await createTestDatabase('openapi_live');
  dropDb = db.drop;
  kernel = await startTestKernel({ roots: [FIXTURES], env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0' } });
});
test.after.always(async () => {
  await kernel?.close();
  await dropDb?.();
  if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
});

async function fetchDocument(): Promise<OpenApiDoc> {
  const res = await api(kernel.apiUrl, '/api/openapi.json');
  if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}: ${res.text}`);
  return res.body as OpenApiDoc;
}

function operations(doc: OpenApiDoc): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item?.[method] ? [{ method, path, op: item[method] }] : [])),
  );
}

/** The security an operation really has: its own, else the document's default. */
function effectiveSecurity(doc: OpenApiDoc, op: Operation | undefined): Record<string, string[]>[] | undefined {
  if (!op) return undefined;
  return op.security ?? doc.security ?? [];
}

/** A concrete URL for a path template: every `{param}` replaced by a dummy value. */
function concretePath(template: string): string {
  return template.replace(/\{[^}]+\}/g, 'dummy-1');
}

/** OpenAPI template -> the same shape as a served path, to compare the two sets. */
function normalisedTemplate(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}').replace(/\/:[^/]+/g, '/{}').replace(/\/$/, '') || '/';
}

test('the document is served without a token, as JSON, and is a valid OpenAPI 3.1 document', async (t) => {
  const res = await api(kernel.apiUrl, '/api/openapi.json');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  const doc = res.body as OpenApiDoc;
  t.is(doc.openapi, '3.1.0');
  await t.notThrowsAsync(validateOpenApi(doc));
});

test('fixture routes are documented with bearer security, public ones with security: []', async (t) => {
  const doc = await fetchDocument();
  t.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: doc.components.securitySchemes.bearerAuth.description });
  for (const path of ['/api/v1/greeter/hello', '/api/v1/greeter/whoami', '/api/v1/greeter/slow', '/api/v1/greeter/conflict', '/api/v1/greeter/boom', '/api/v1/capability-packages']) {
    const op = doc.paths[path]?.get;
    t.truthy(op, `${path} is documented`);
    t.deepEqual(effectiveSecurity(doc, op), [{ bearerAuth: [] }], `${path} needs a bearer token`);
  }
  t.deepEqual(effectiveSecurity(doc, doc.paths['/api/v1/greeter/echo']?.post), [{ bearerAuth: [] }]);
  for (const path of ['/api/v1/greeter/open', '/api/v1/cjs-hello/hello', '/api/v1/esm-hello/hello']) {
    t.deepEqual(doc.paths[path]?.get?.security, [], `${path} is public`);
  }
  for (const path of ['/health', '/health/ready', '/health/deep', '/api/openapi.json', '/metrics']) {
    t.deepEqual(doc.paths[path]?.get?.security, [], `${path} is a public kernel path`);
  }
  // the authentication provider's action is not published over HTTP
  t.false(Object.keys(doc.paths).some((p) => p.startsWith('/api/v1/auth')));
});

test('POST /api/v1/greeter/echo documents a strict body: name required, maxLength 20, no extra properties', async (t) => {
  const doc = await fetchDocument();
  const body = doc.paths['/api/v1/greeter/echo']?.post?.requestBody;
  t.truthy(body, 'echo has a request body');
  const schema = body.content['application/json'].schema;
  t.is(schema.type, 'object');
  t.deepEqual(schema.required, ['name']);
  t.is(schema.properties.name.type, 'string');
  t.is(schema.properties.name.maxLength, 20);
  t.is(schema.properties.name.minLength, 1);
  t.is(schema.properties.count.type, 'integer');
  t.is(schema.additionalProperties, false);
});

test('every documented operation is served (none answers 404 ROUTE_NOT_FOUND)', async (t) => {
  const doc = await fetchDocument();
  const ops = operations(doc);
  t.true(ops.length >= 15, `only ${ops.length} operations documented`);
  for (const { method, path, op } of ops) {
    const hasBody = op.requestBody !== undefined;
    const res = await api(kernel.apiUrl, concretePath(path), {
      method: method.toUpperCase(),
      token: OWNER,
      ...(hasBody ? { json: {} } : {}),
    });
    const notFound = res.status === 404 && (res.body?.code === 'ROUTE_NOT_FOUND' || res.body === undefined);
    t.false(notFound, `${method.toUpperCase()} ${path} is documented but not served: ${res.status} ${res.text.slice(0, 200)}`);
  }
});

test('every /api/v1 route the gateway serves is documented', async (t) => {
  const doc = await fetchDocument();
  const documented = new Set(operations(doc).map(({ method, path }) => `${method.toUpperCase()} ${normalisedTemplate(path)}`));
  const aliases = (await kernel.broker.call('api.listAliases')) as { fullPath: string; methods: string; actionName?: string }[];
  const served = aliases.filter((a) => a.fullPath.startsWith('/api/v1/'));
  t.true(served.length >= 10, `the gateway lists only ${served.length} /api/v1 routes`);
  for (const alias of served) {
    const methods = alias.methods === '*' ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : [alias.methods.toUpperCase()];
    for (const method of methods) {
      const key = `${method} ${normalisedTemplate(alias.fullPath)}`;
      t.true(documented.has(key), `${key} (${alias.actionName}) is served but not documented`);
    }
  }
  // and the gateway's own actions, blacklisted on /api/v1, are neither served nor documented
  t.false(served.some((a) => a.actionName?.startsWith('api.')));
  t.false(Object.keys(doc.paths).some((p) => p.startsWith('/api/v1/api/')));
});

test('/metrics is documented only while metrics are enabled', (t) => {
  const withMetrics = new OpenApiCache(kernel.broker, { version: 't', metrics: true }).document() as OpenApiDoc;
  const withoutMetrics = new OpenApiCache(kernel.broker, { version: 't', metrics: false }).document() as OpenApiDoc;
  t.truthy(withMetrics.paths['/metrics']?.get);
  t.is(withoutMetrics.paths['/metrics'], undefined);
  t.truthy(withoutMetrics.paths['/health']?.get);
});

function writeHotPackage(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hot-widget', version: '1.0.0', type: 'module', capability: { kind: 'domain', roles: ['api'] } }));
  writeFileSync(
    join(dir, 'index.js'),
    `export default {
  name: 'hot-widget',
  actions: {
    show: { rest: 'GET /items/:id', params: { id: { type: 'string', min: 1 } }, handler: (ctx) => ({ id: ctx.params.id }) },
    ping: { rest: 'GET /ping', auth: false, handler: () => ({ pong: true }) },
  },
};
`,
  );
}

test.serial('the document follows packages loaded and unloaded at run time', async (t) => {
  const dir = join(tempRoot, 'hot-widget');
  writeHotPackage(dir);
  const before = await fetchDocument();
  t.is(before.paths['/api/v1/hot-widget/items/{id}'], undefined);

  const record = await kernel.loader.load(dir);
  t.is(record.state, 'loaded', JSON.stringify(record.error));
  try {
    const loaded = await fetchDocument();
    const show = loaded.paths['/api/v1/hot-widget/items/{id}']?.get;
    t.truthy(show, 'the new route is documented');
    t.deepEqual(effectiveSecurity(loaded, show), [{ bearerAuth: [] }]);
    t.true(show?.parameters?.some((p: { name: string; in: string; required?: boolean }) => p.name === 'id' && p.in === 'path' && p.required === true));
    t.deepEqual(loaded.paths['/api/v1/hot-widget/ping']?.get?.security, []);
    await t.notThrowsAsync(validateOpenApi(loaded));
    // documented and served
    const served = await api(kernel.apiUrl, '/api/v1/hot-widget/items/abc', { token: OWNER });
    t.is(served.status, 200, served.text);
    t.deepEqual(served.body, { id: 'abc' });
  } finally {
    await kernel.loader.unload(dir);
  }

  const after = await fetchDocument();
  t.is(after.paths['/api/v1/hot-widget/items/{id}'], undefined);
  t.is(after.paths['/api/v1/hot-widget/ping'], undefined);
  t.truthy(after.paths['/api/v1/greeter/hello'], 'the other packages stay documented');
  const gone = await api(kernel.apiUrl, '/api/v1/hot-widget/items/abc', { token: OWNER });
  t.is(gone.status, 404);
  t.is(gone.body?.code, 'ROUTE_NOT_FOUND');
});
