import test from 'ava';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestKernel, api, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { eventually } from './helpers/eventually.ts';
import { writePackage } from './helpers/packages.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
let kernel: TestKernel;
let root: string;
let dropDb: () => Promise<void>;

test.before(async () => {
  root = mkdtempSync(join(tmpdir(), 'wao-hot-'));
  cpSync(join(FIXTURES, 'test-auth'), join(root, 'test-auth'), { recursive: true });
  writePackage(root, 'stable');
  const db = await createTestDatabase('hot_reload');
  dropDb = db.drop;
  kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: db.url, HOT_RELOAD: 'true', RATE_LIMIT_PER_MINUTE: '0' } });
});
test.after.always(async () => {
  await kernel?.close();
  await dropDb?.();
  rmSync(root, { recursive: true, force: true });
});

const get = (path: string) => api(kernel.apiUrl, path);
const stateOf = (name: string) => kernel.loader.list().find((p) => p.name === name);

test.serial('a package folder added while running is loaded and served', async (t) => {
  t.is((await get('/api/v1/added/ping')).status, 404);
  writePackage(root, 'added');
  const res = await eventually(async () => ((await get('/api/v1/added/ping')).status === 200 ? get('/api/v1/added/ping') : undefined));
  t.deepEqual(res?.body, { pong: true, version: 1 });
  t.is(stateOf('added')?.state, 'loaded');
});

test.serial('a changed package is reloaded without dropping in-flight or concurrent requests', async (t) => {
  writePackage(root, 'reloaded');
  await eventually(async () => (await get('/api/v1/reloaded/ping')).status === 200);
  const inFlight = get('/api/v1/reloaded/slow?ms=1500');
  await new Promise((r) => setTimeout(r, 200));
  const generation = stateOf('reloaded')!.generation;
  writeFileSync(join(root, 'reloaded', 'version.js'), 'export const version = 2;\n');
  // a steady stream of requests across the reload: every one must succeed
  const statuses: number[] = [];
  let reloaded = false;
  const stream = (async () => {
    const until = Date.now() + 20_000;
    while (!reloaded && Date.now() < until) {
      const r = await get('/api/v1/reloaded/ping');
      statuses.push(r.status);
      if (r.body?.version === 2) reloaded = true;
    }
  })();
  const old = await inFlight;
  await stream;
  t.is(old.status, 200);
  t.deepEqual(old.body, { slept: 1500, version: 1 }, 'the request in flight finished on the old version');
  t.true(reloaded, 'the new version answers');
  t.true(statuses.length > 1);
  t.deepEqual([...new Set(statuses)], [200], 'no request failed during the reload');
  t.true(stateOf('reloaded')!.generation > generation);
});

test.serial('a removed package is destroyed and its routes disappear', async (t) => {
  writePackage(root, 'removed');
  await eventually(async () => (await get('/api/v1/removed/ping')).status === 200);
  rmSync(join(root, 'removed'), { recursive: true, force: true });
  const gone = await eventually(async () => (await get('/api/v1/removed/ping')).status === 404);
  t.true(gone);
  t.is(stateOf('removed'), undefined);
  t.falsy(kernel.broker.getLocalService('removed'));
});

test.serial('a package with a syntax error is reported and leaves the others untouched', async (t) => {
  writePackage(root, 'broken', { body: 'export default { name: "broken", actions: { x: { handler() { return ( } } } };' });
  const rec = await eventually(async () => (stateOf('broken')?.state === 'failed' ? stateOf('broken') : undefined));
  t.is(rec?.error?.code, 'KERNEL_ERR_ENTRY');
  t.is((await get('/api/v1/stable/ping')).status, 200);
  const deep = await get('/health/deep');
  t.is(deep.status, 503);
  t.true(deep.body.failing.includes('packages'));
  t.regex(JSON.stringify(deep.body), /broken/);
  rmSync(join(root, 'broken'), { recursive: true, force: true });
  t.true(await eventually(async () => (await get('/health/deep')).status === 200));
});

test.serial('a broken reload keeps the previous version serving', async (t) => {
  writePackage(root, 'flaky');
  await eventually(async () => (await get('/api/v1/flaky/ping')).status === 200);
  writeFileSync(join(root, 'flaky', 'version.js'), 'export const version = ;\n');
  const rec = await eventually(async () => (stateOf('flaky')?.state === 'reload_failed' ? stateOf('flaky') : undefined));
  t.truthy(rec?.error);
  const res = await get('/api/v1/flaky/ping');
  t.deepEqual(res.body, { pong: true, version: 1 });
  writeFileSync(join(root, 'flaky', 'version.js'), 'export const version = 3;\n');
  t.true(await eventually(async () => (await get('/api/v1/flaky/ping')).body?.version === 3));
  t.is(stateOf('flaky')?.state, 'loaded');
  t.is(stateOf('flaky')?.error, null);
});

test.serial('a package whose service name clashes with a loaded one is refused', async (t) => {
  writePackage(root, 'impostor', { service: 'stable' });
  const rec = await eventually(async () => (stateOf('impostor')?.state === 'failed' ? stateOf('impostor') : undefined));
  t.is(rec?.error?.code, 'KERNEL_ERR_ACTION_CLASH');
  t.regex(rec!.error!.message, /already served by stable/);
  t.deepEqual((await get('/api/v1/stable/ping')).body, { pong: true, version: 1 });
  rmSync(join(root, 'impostor'), { recursive: true, force: true });
});

test.serial('a bad manifest is refused with a message naming the problem', async (t) => {
  writePackage(root, 'weird', { kind: 'gadget' });
  const rec = await eventually(async () => (stateOf('weird')?.state === 'failed' ? stateOf('weird') : undefined));
  t.is(rec?.error?.code, 'KERNEL_ERR_MANIFEST');
  t.regex(rec!.error!.message, /kind/);
  rmSync(join(root, 'weird'), { recursive: true, force: true });
});

test.serial('operators list the packages with name, kind, version, roles, node, state and error', async (t) => {
  const res = await api(kernel.apiUrl, '/api/v1/capability-packages', { token: 'owner-token' });
  t.is(res.status, 200);
  const stable = res.body.items.find((p: { name: string }) => p.name === 'stable');
  t.like(stable, { name: 'stable', kind: 'domain', version: '1.0.1', roles: ['api'], node: kernel.broker.nodeID, state: 'loaded', error: null });
  t.is(stable.dir, undefined, 'server paths are not exposed');
});

test.serial('a hot-loaded package gets its migrations applied before it serves', async (t) => {
  cpSync(join(import.meta.dirname, 'fixtures', 'migrating', 'notes'), join(root, 'notes'), { recursive: true });
  const res = await eventually(async () => {
    const r = await api(kernel.apiUrl, '/api/v1/notes', { method: 'POST', json: { body: 'first' } });
    return r.status === 201 ? r : undefined;
  });
  t.deepEqual(res?.body, { id: 1, body: 'first' });
  const [applied] = await kernel.stores!.db.query("SELECT name FROM kernel_migrations WHERE package = 'notes'");
  t.deepEqual(applied, [{ name: '001-create-notes' }]);
});
