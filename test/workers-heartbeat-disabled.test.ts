import test from 'ava';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestKernel, api, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase } from './helpers/pg.ts';

const ROOT = join(import.meta.dirname, '..');
let kernel: TestKernel;
let dropDb: () => Promise<void>;
let packageRoot: string;

test.before(async () => {
  const db = await createTestDatabase('workers_disabled');
  dropDb = db.drop;
  packageRoot = mkdtempSync(join(tmpdir(), 'wao-workers-'));
  symlinkSync(join(ROOT, 'plugins', 'workers'), join(packageRoot, 'workers'));
  symlinkSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(packageRoot, 'test-auth'));
  kernel = await startTestKernel({ roots: [packageRoot], env: { DATABASE_URL: db.url, WORKER_TOKEN: '' } });
});
test.after.always(async () => {
  await kernel?.close();
  await dropDb?.();
  if (packageRoot) rmSync(packageRoot, { recursive: true, force: true });
});

test('with WORKER_TOKEN empty every external heartbeat is refused with a clear 403, whatever token it carries', async (t) => {
  const body = { worker_id: 'ext-1', roles: ['work'], queues: ['work'], concurrency: { work: 1 }, version: '1.0.0', in_flight: 0 };
  for (const headers of [{}, { Authorization: 'Bearer ' }, { Authorization: 'Bearer anything' }] as Record<string, string>[]) {
    const res = await api(kernel.apiUrl, '/api/v1/workers/heartbeat', { method: 'POST', json: body, headers });
    t.is(res.status, 403, res.text);
    t.is(res.body.code, 'WORKER_ROUTES_DISABLED');
    t.regex(res.body.detail, /WORKER_TOKEN is not set/);
  }
  const [rows] = await kernel.stores!.db.query("SELECT worker_id FROM worker_heartbeats WHERE worker_id = 'ext-1'");
  t.deepEqual(rows, []);
});

test('the node still records and lists its own heartbeat without a worker token', async (t) => {
  const res = await api(kernel.apiUrl, '/api/v1/workers', { token: 'owner-token' });
  t.is(res.status, 200, res.text);
  const me = res.body.items.find((w: { worker_id: string }) => w.worker_id === kernel.broker.nodeID);
  t.like(me, { status: 'online', kind: 'node' });
  t.deepEqual(me.seen_in, ['registry', 'heartbeats']);
});
