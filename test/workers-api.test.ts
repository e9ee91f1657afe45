import test from 'ava';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestKernel, api, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { compileWithAjv } from './openapi-ajv.ts';
import { eventually } from './helpers/eventually.ts';
import { KERNEL_VERSION } from '../kernel/bootstrap.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';

const ROOT = join(import.meta.dirname, '..');
const WORKER_TOKEN = 'wt-0123456789abcdef';
let kernel: TestKernel;
let dropDb: () => Promise<void>;
let packageRoot: string;

test.before(async () => {
  const db = await createTestDatabase('workers_api');
  dropDb = db.drop;
  // exactly the packages under test: symlinks keep the packages' relative kernel imports working
  packageRoot = mkdtempSync(join(tmpdir(), 'wao-workers-'));
  symlinkSync(join(ROOT, 'plugins', 'workers'), join(packageRoot, 'workers'));
  symlinkSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(packageRoot, 'test-auth'));
  kernel = await startTestKernel({
    roots: [packageRoot],
    env: { DATABASE_URL: db.url, WORKER_TOKEN, WORKER_CONTROL_CONCURRENCY: '3', WORKER_WORK_CONCURRENCY: '7', WORKER_STALE_SECONDS: '60', WORKER_FORGET_SECONDS: '3600', WORKER_HEARTBEAT_SECONDS: '1', RATE_LIMIT_PER_MINUTE: '0' },
  });
});
test.after.always(async () => {
  await kernel?.close();
  await dropDb?.();
  if (packageRoot) rmSync(packageRoot, { recursive: true, force: true });
});

const heartbeat = (json: unknown, token: string | null = WORKER_TOKEN, headers: Record<string, string> = {}) =>
  api(kernel.apiUrl, '/api/v1/workers/heartbeat', { method: 'POST', json, headers: { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) } });

const listWorkers = async (token = 'owner-token') => {
  const res = await api(kernel.apiUrl, '/api/v1/workers?limit=200', { token });
  return res;
};

const validBeat = (workerId: string) => ({ worker_id: workerId, roles: ['work'], queues: ['work'], concurrency: { work: 8 }, version: '2.1.0', hostname: 'gpu-box-1', in_flight: 3 });

async function rowOf(workerId: string): Promise<Record<string, unknown> | undefined> {
  const [rows] = await kernel.stores!.db.query('SELECT * FROM worker_heartbeats WHERE worker_id = $1', { bind: [workerId] });
  return (rows as Record<string, unknown>[])[0];
}

async function responseSchema(path: string, method: string): Promise<(data: unknown) => boolean> {
  const doc = (await api(kernel.apiUrl, '/api/openapi.json')).body;
  return compileWithAjv(doc.paths[path][method].responses['200'].content['application/json'].schema);
}

test('the list shows this node with its roles, queues, concurrency, version and status online', async (t) => {
  const res = await listWorkers();
  t.is(res.status, 200, res.text);
  t.true((await responseSchema('/api/v1/workers', 'get'))(res.body), 'the body matches the declared response schema');
  const me = res.body.items.find((w: { worker_id: string }) => w.worker_id === kernel.broker.nodeID);
  t.like(me, {
    kind: 'node',
    roles: ['api', 'control', 'work'],
    queues: ['celery', 'work'],
    concurrency: { celery: 3, work: 7 },
    version: KERNEL_VERSION,
    hostname: hostname(),
    status: 'online',
  });
  t.deepEqual(me.seen_in, ['registry', 'heartbeats'], 'the node recorded its own heartbeat at start');
  t.true(Number.isInteger(me.in_flight) && me.in_flight >= 1, 'the list request itself is in flight on this node');
  t.false(Number.isNaN(Date.parse(me.last_heartbeat_at)));
  t.is(res.body.stale_after_seconds, 60);
  t.like(res.body, { limit: 200, offset: 0 });
  t.is(res.body.total, res.body.items.length);
});

test('the node\'s own heartbeat row carries its roles, queues and concurrency', async (t) => {
  const row = await rowOf(kernel.broker.nodeID);
  t.like(row, { roles: ['api', 'control', 'work'], queues: ['celery', 'work'], concurrency: { celery: 3, work: 7 }, version: KERNEL_VERSION });
  t.like(row?.meta, { source: 'kernel', metadata: 'broker' });
});

test('the node keeps recording its heartbeat every WORKER_HEARTBEAT_SECONDS', async (t) => {
  const first = (await rowOf(kernel.broker.nodeID))!.last_seen_at as Date;
  const later = await eventually(async () => {
    const seen = (await rowOf(kernel.broker.nodeID))!.last_seen_at as Date;
    return seen.getTime() > first.getTime() ? seen : undefined;
  });
  t.truthy(later, 'last_seen_at moved on');
});

test('owners and admins may list workers; members get 403; no token 401', async (t) => {
  t.is((await listWorkers('admin-token')).status, 200);
  const member = await listWorkers('member-token');
  t.is(member.status, 403);
  t.is(member.body.code, 'FORBIDDEN');
  const anonymous = await api(kernel.apiUrl, '/api/v1/workers');
  t.is(anonymous.status, 401);
});

test('a heartbeat with the right token is recorded and listed', async (t) => {
  const res = await heartbeat(validBeat('ext-worker-1'));
  t.is(res.status, 200, res.text);
  t.true((await responseSchema('/api/v1/workers/heartbeat', 'post'))(res.body));
  t.like(res.body, { worker_id: 'ext-worker-1', kind: 'external', status: 'online', in_flight: 3, concurrency: { work: 8 } });
  const listed = (await listWorkers()).body.items.find((w: { worker_id: string }) => w.worker_id === 'ext-worker-1');
  t.like(listed, { kind: 'external', roles: ['work'], queues: ['work'], concurrency: { work: 8 }, version: '2.1.0', hostname: 'gpu-box-1', in_flight: 3, status: 'online' });
  t.deepEqual(listed.seen_in, ['heartbeats']);

  // the next heartbeat overwrites the row
  t.is((await heartbeat({ ...validBeat('ext-worker-1'), in_flight: 0, version: '2.2.0' })).status, 200);
  t.like(await rowOf('ext-worker-1'), { in_flight: 0, version: '2.2.0' });
});

test('a missing, malformed or wrong worker token is 401 and records nothing', async (t) => {
  for (const [label, res] of [
    ['missing', await heartbeat(validBeat('intruder'), null)],
    ['wrong', await heartbeat(validBeat('intruder'), 'wt-0123456789abcdeX')],
    ['a user token', await heartbeat(validBeat('intruder'), 'owner-token')],
    ['basic', await heartbeat(validBeat('intruder'), null, { Authorization: `Basic ${WORKER_TOKEN}` })],
    // a body cannot stand in for the request the gateway passes to the action
    ['a forged $req in the body', await heartbeat({ ...validBeat('intruder'), $req: { headers: { authorization: `Bearer ${WORKER_TOKEN}` } } }, null)],
  ] as const) {
    t.is(res.status, 401, `${label}: ${res.text}`);
    t.is(res.body.code, 'UNAUTHORIZED', label);
    t.is(res.headers.get('www-authenticate'), 'Bearer', label);
  }
  t.is(await rowOf('intruder'), undefined);
});

test('bad heartbeat bodies are 422 naming the field, and record nothing', async (t) => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['missing worker_id', { ...validBeat('x'), worker_id: undefined }, 'worker_id'],
    ['worker_id with a space', validBeat('bad id'), 'worker_id'],
    ['roles not an array', { ...validBeat('bad-1'), roles: 'work' }, 'roles'],
    ['an unknown role', { ...validBeat('bad-2'), roles: ['chef'] }, 'roles[0]'],
    ['negative in_flight', { ...validBeat('bad-3'), in_flight: -1 }, 'in_flight'],
    ['in_flight not a number', { ...validBeat('bad-4'), in_flight: 'many' }, 'in_flight'],
    ['concurrency not a map', { ...validBeat('bad-5'), concurrency: 4 }, 'concurrency'],
    ['concurrency of an unlisted queue', { ...validBeat('bad-6'), concurrency: { work: 2, celery: 1 } }, 'concurrency.celery'],
    ['an unknown field', { ...validBeat('bad-7'), colour: 'blue' }, 'colour'],
    ['an over-long version', { ...validBeat('bad-8'), version: 'v'.repeat(65) }, 'version'],
  ];
  for (const [label, body, field] of cases) {
    const res = await heartbeat(body);
    t.is(res.status, 422, `${label}: ${res.text}`);
    t.is(res.body.code, 'VALIDATION_FAILED', label);
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), `${label}: ${JSON.stringify(res.body.errors)}`);
  }
  const [rows] = await kernel.stores!.db.query("SELECT worker_id FROM worker_heartbeats WHERE worker_id LIKE 'bad%' OR worker_id = 'x'");
  t.deepEqual(rows, []);
});

test('a worker silent for longer than WORKER_STALE_SECONDS is listed as stale', async (t) => {
  t.is((await heartbeat(validBeat('ext-quiet'))).status, 200);
  await kernel.stores!.db.query("UPDATE worker_heartbeats SET last_seen_at = now() - interval '61 seconds' WHERE worker_id = 'ext-quiet'");
  const quiet = (await listWorkers()).body.items.find((w: { worker_id: string }) => w.worker_id === 'ext-quiet');
  t.is(quiet.status, 'stale');
  t.true(Date.now() - Date.parse(quiet.last_heartbeat_at) >= 60_000);

  // within the window it is online again
  await kernel.stores!.db.query("UPDATE worker_heartbeats SET last_seen_at = now() - interval '30 seconds' WHERE worker_id = 'ext-quiet'");
  const back = (await listWorkers()).body.items.find((w: { worker_id: string }) => w.worker_id === 'ext-quiet');
  t.is(back.status, 'online');
});

test('a worker silent for longer than WORKER_FORGET_SECONDS is forgotten by the next heartbeat tick; a stale one is kept', async (t) => {
  for (const id of ['ext-gone', 'ext-stale']) t.is((await heartbeat(validBeat(id))).status, 200);
  await kernel.stores!.db.query("UPDATE worker_heartbeats SET last_seen_at = now() - interval '3601 seconds' WHERE worker_id = 'ext-gone'");
  await kernel.stores!.db.query("UPDATE worker_heartbeats SET last_seen_at = now() - interval '3000 seconds' WHERE worker_id = 'ext-stale'");
  const gone = await eventually(async () => !(await listWorkers()).body.items.some((w: { worker_id: string }) => w.worker_id === 'ext-gone'), { timeoutMs: 5000 });
  t.true(gone, 'the row of the long-silent worker was deleted');
  const [rows] = await kernel.stores!.db.query("SELECT worker_id FROM worker_heartbeats WHERE worker_id IN ('ext-gone', 'ext-stale')");
  t.deepEqual(rows, [{ worker_id: 'ext-stale' }]);
  t.is((await listWorkers()).body.items.find((w: { worker_id: string }) => w.worker_id === 'ext-stale').status, 'stale');
});

test('the heartbeat route is documented with the worker token scheme and its body', async (t) => {
  const doc = (await api(kernel.apiUrl, '/api/openapi.json')).body;
  await t.notThrowsAsync(validateOpenApi(doc));
  const op = doc.paths['/api/v1/workers/heartbeat'].post;
  t.deepEqual(op.security, [{ workerToken: [] }]);
  t.is(doc.components.securitySchemes.workerToken.scheme, 'bearer');
  const body = op.requestBody.content['application/json'].schema;
  t.deepEqual(Object.keys(body.properties).sort(), ['concurrency', 'hostname', 'in_flight', 'queues', 'roles', 'version', 'worker_id']);
  t.deepEqual([...body.required].sort(), ['concurrency', 'in_flight', 'queues', 'roles', 'version', 'worker_id']);
});
