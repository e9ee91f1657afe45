import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestKernel, api, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { compileWithAjv } from './openapi-ajv.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';

const ROOT = join(import.meta.dirname, '..');
const TIMEOUT_MS = 1500;
let kernel: TestKernel;
let dropDb: () => Promise<void>;
let packageRoot: string;

test.before(async () => {
  const db = await createTestDatabase('usage_summary');
  dropDb = db.drop;
  packageRoot = mkdtempSync(join(tmpdir(), 'wao-usage-'));
  symlinkSync(join(ROOT, 'plugins', 'usage'), join(packageRoot, 'usage'));
  symlinkSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(packageRoot, 'test-auth'));
  kernel = await startTestKernel({ roots: [packageRoot], env: { DATABASE_URL: db.url, USAGE_SOURCE_TIMEOUT_MS: String(TIMEOUT_MS), RATE_LIMIT_PER_MINUTE: '0' } });
});
test.after.always(async () => {
  await kernel?.close();
  await dropDb?.();
  if (packageRoot) rmSync(packageRoot, { recursive: true, force: true });
});

const summary = (query = '', token = 'owner-token') => api(kernel.apiUrl, `/api/v1/usage/summary${query}`, { token });

/** Writes and hot-loads a package whose `usageSummary` runs the given handler body (plain JS). */
async function addContributor(name: string, handlerBody: string): Promise<string> {
  const dir = join(packageRoot, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `@test/${name}`, version: '1.0.0', type: 'module', capability: { kind: 'domain', roles: ['api'] } }));
  writeFileSync(
    join(dir, 'index.js'),
    `export default {
  name: ${JSON.stringify(name)},
  actions: {
    usageSummary: {
      visibility: 'public',
      params: { $$strict: true, entity_id: { type: 'string', min: 1 }, since: { type: 'string', min: 20 } },
      async handler(ctx) { const { entity_id, since } = ctx.params; ${handlerBody} },
    },
  },
};
`,
  );
  const rec = await kernel.loader.load(dir);
  if (rec.state !== 'loaded') throw new Error(`${name} did not load: ${JSON.stringify(rec.error)}`);
  return dir;
}

test.serial('with no contributor loaded every count is 0 and sources is empty', async (t) => {
  const res = await summary();
  t.is(res.status, 200, res.text);
  t.like(res.body, { entity_id: 'e-1', days: 30, tasks: 0, runs: 0, jobs: 0, tokens: 0, storage_bytes: 0, complete: true });
  t.deepEqual(res.body.sources, []);
  const windowMs = Date.parse(res.body.until) - Date.parse(res.body.since);
  t.is(windowMs, 30 * 86_400_000, 'the default window is 30 days');
});

test.serial('days must be an integer from 1 to 365 (422 naming days); unknown query fields are refused', async (t) => {
  for (const days of ['0', '366', '-1', '1.5', 'abc']) {
    const res = await summary(`?days=${days}`);
    t.is(res.status, 422, `days=${days}: ${res.text}`);
    t.is(res.body.code, 'VALIDATION_FAILED');
    t.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['days'], `days=${days}`);
  }
  const unknown = await summary('?days=7&day=3');
  t.is(unknown.status, 422);
  t.deepEqual(unknown.body.errors.map((e: { field: string }) => e.field), ['day']);
  t.is((await summary('?days=1')).status, 200);
  t.is((await summary('?days=365')).status, 200);
});

test.serial('any member of the entity may read its usage; no token is 401', async (t) => {
  t.is((await summary('', 'member-token')).status, 200);
  t.is((await summary('', 'admin-token')).status, 200);
  t.is((await api(kernel.apiUrl, '/api/v1/usage/summary')).status, 401);
});

test.serial('contributions are summed per entity; a failing, a slow and a garbled contributor are reported, not fatal', async (t) => {
  // numbers differ per entity, and `jobs` echoes the window length the contract passed as `since`
  await addContributor('alpha', `
    const days = Math.round((Date.now() - Date.parse(since)) / 86400000);
    const byEntity = { 'e-1': { tasks: 3, runs: 2, tokens: 1500 }, 'e-2': { tasks: 40, runs: 10, tokens: 99999 } };
    return { ...(byEntity[entity_id] ?? {}), jobs: days };`);
  await addContributor('beta', `return { storage_bytes: entity_id === 'e-1' ? 4096 : 1, tasks: 1, not_a_counter: 12345 };`);
  await addContributor('broken', `throw new Error('connection to 10.0.0.7 refused, password=hunter2');`);
  await addContributor('garbled', `return { tokens: -5 };`);
  await addContributor('sleepy', `await new Promise((r) => setTimeout(r, ${TIMEOUT_MS * 3})); return { tasks: 1000 };`);

  const one = await summary('?days=7');
  t.is(one.status, 200, one.text);
  t.like(one.body, { entity_id: 'e-1', days: 7, tasks: 4, runs: 2, jobs: 7, tokens: 1500, storage_bytes: 4096, complete: false });
  const statusOf = Object.fromEntries(one.body.sources.map((s: { service: string; status: string }) => [s.service, s.status]));
  t.deepEqual(statusOf, { alpha: 'ok', beta: 'ok', broken: 'failed', garbled: 'invalid', sleepy: 'timeout' });
  const source = (service: string) => one.body.sources.find((s: { service: string }) => s.service === service);
  t.deepEqual(source('alpha'), { action: 'alpha.usageSummary', service: 'alpha', package: '@test/alpha', status: 'ok', counts: { tasks: 3, runs: 2, tokens: 1500, jobs: 7 }, error: null });
  t.deepEqual(source('beta').counts, { tasks: 1, storage_bytes: 4096 }, 'keys outside the contract are ignored');
  t.like(source('broken'), { counts: {}, error: { code: 'INTERNAL_ERROR' } });
  t.false(JSON.stringify(one.body).includes('hunter2'), 'a failure says nothing of its internal cause');
  t.like(source('sleepy'), { counts: {}, error: { code: 'TIMEOUT', message: `No answer within ${TIMEOUT_MS} ms.` } });
  t.like(source('garbled'), { counts: {}, error: { code: 'INVALID_CONTRIBUTION' } });
  t.deepEqual(one.body.sources.map((s: { action: string }) => s.action), [...one.body.sources.map((s: { action: string }) => s.action)].sort(), 'sources are sorted by action');

  const doc = (await api(kernel.apiUrl, '/api/openapi.json')).body;
  await t.notThrowsAsync(validateOpenApi(doc));
  const valid = compileWithAjv(doc.paths['/api/v1/usage/summary'].get.responses['200'].content['application/json'].schema);
  t.true(valid(one.body), 'the body matches the declared response schema');

  // another entity gets its own numbers, never entity e-1's
  const two = await summary('?days=7', 'other-token');
  t.like(two.body, { entity_id: 'e-2', tasks: 41, runs: 10, jobs: 7, tokens: 99999, storage_bytes: 1 });
});

test.serial('contributors are read live from the registry: an unloaded one is gone from the next summary', async (t) => {
  await kernel.loader.unload(join(packageRoot, 'broken'));
  await kernel.loader.unload(join(packageRoot, 'garbled'));
  await kernel.loader.unload(join(packageRoot, 'sleepy'));
  const res = await summary('?days=2');
  t.deepEqual(res.body.sources.map((s: { service: string }) => s.service), ['alpha', 'beta']);
  t.like(res.body, { tasks: 4, jobs: 2, complete: true });
});
