import test from 'ava';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestKernel, api, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { eventually } from './helpers/eventually.ts';

const ROOT = join(import.meta.dirname, '..');
const kernels: TestKernel[] = [];
let dropDb: (() => Promise<void>) | undefined;
let packageRoot: string | undefined;

test.after.always(async () => {
  for (const k of kernels) await k.close().catch(() => undefined);
  await dropDb?.();
  if (packageRoot) rmSync(packageRoot, { recursive: true, force: true });
});

interface Worker { worker_id: string; status: string; roles: string[]; queues: string[]; concurrency: Record<string, number>; seen_in: string[] }

test('an api node and a work node over NATS: the api node lists both with their roles, and the stopped one as offline', async (t) => {
  const db = await createTestDatabase('workers_cluster');
  dropDb = db.drop;
  packageRoot = mkdtempSync(join(tmpdir(), 'wao-workers-'));
  symlinkSync(join(ROOT, 'plugins', 'workers'), join(packageRoot, 'workers'));
  symlinkSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(packageRoot, 'test-auth'));
  const suffix = randomUUID().slice(0, 8);
  const common = { TRANSPORTER: 'nats://127.0.0.1:4222', NAMESPACE: `test-workers-${suffix}`, DATABASE_URL: db.url, WORKER_WORK_CONCURRENCY: '5' };
  const apiNode = await startTestKernel({ roots: [packageRoot], env: { ...common, ROLES: 'api', NODE_ID: `api-${suffix}` } });
  kernels.push(apiNode);
  const workNode = await startTestKernel({ roots: [packageRoot], env: { ...common, ROLES: 'work', NODE_ID: `work-${suffix}` } });
  kernels.push(workNode);

  const list = async (): Promise<Worker[]> => (await api(apiNode.apiUrl, '/api/v1/workers', { token: 'owner-token' })).body.items;
  const both = await eventually(async () => {
    const items = await list();
    const work = items.find((w) => w.worker_id === `work-${suffix}`);
    return work?.seen_in.includes('registry') ? items : undefined;
  }, { timeoutMs: 30_000 });
  t.truthy(both, 'the api node sees the work node');
  const apiEntry = both!.find((w) => w.worker_id === `api-${suffix}`);
  const workEntry = both!.find((w) => w.worker_id === `work-${suffix}`);
  t.like(apiEntry, { roles: ['api'], queues: [], concurrency: {}, status: 'online' });
  t.like(workEntry, { roles: ['work'], queues: ['work'], concurrency: { work: 5 }, status: 'online' });
  // the work node has no HTTP listener, yet it recorded its own heartbeat in the shared database
  t.deepEqual(workEntry!.seen_in, ['registry', 'heartbeats']);

  // a work node that stops leaves the cluster: offline at once (not stale), and its row says it stopped
  await workNode.close();
  kernels.splice(kernels.indexOf(workNode), 1);
  const gone = await eventually(async () => (await list()).find((w) => w.worker_id === `work-${suffix}` && w.status === 'offline'), { timeoutMs: 20_000 });
  t.truthy(gone, 'the stopped work node is listed offline');
  const [rows] = await apiNode.stores!.db.query('SELECT meta, in_flight FROM worker_heartbeats WHERE worker_id = $1', { bind: [`work-${suffix}`] });
  const row = (rows as { meta: { stopped_at?: string }; in_flight: number }[])[0];
  t.truthy(row.meta.stopped_at);
  t.is(row.in_flight, 0);
});
