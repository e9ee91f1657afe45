import test from 'ava';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { eventually } from './helpers/eventually.ts';
import { NODE_TYPES } from './workflows-helpers.ts';

const ROOT = join(import.meta.dirname, '..');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const suffix = randomUUID().slice(0, 8);
const NAMESPACE = `wfcluster${suffix}`;
let db: TestDatabase;
let apiNode: TestKernel;
let workNode: TestKernel;
const roots: string[] = [];

/** An api node with NO node-type packages and a work node serving all of them, over NATS. */
test.before(async () => {
  db = await createTestDatabase('wf_cluster');
  const apiRoot = mkdtempSync(join(tmpdir(), 'wao-wf-api-'));
  const workRoot = mkdtempSync(join(tmpdir(), 'wao-wf-work-'));
  roots.push(apiRoot, workRoot);
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(apiRoot, 'test-auth'), { recursive: true });
  symlinkSync(join(ROOT, 'plugins', 'workspaces'), join(apiRoot, 'workspaces'), 'dir');
  symlinkSync(join(ROOT, 'plugins', 'workflows'), join(apiRoot, 'workflows'), 'dir');
  symlinkSync(join(ROOT, 'plugins', 'workflows'), join(workRoot, 'workflows'), 'dir');
  for (const n of NODE_TYPES) symlinkSync(join(ROOT, 'nodes', n), join(workRoot, `node-${n}`), 'dir');
  const common = { TRANSPORTER: 'nats://127.0.0.1:4222', NAMESPACE, REDIS_URL, DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0' };
  apiNode = await startTestKernel({ roots: [apiRoot], env: { ...common, ROLES: 'api', NODE_ID: `wf-api-${suffix}` } });
  workNode = await startTestKernel({ roots: [workRoot], env: { ...common, ROLES: 'work', NODE_ID: `wf-work-${suffix}` } });
});

test.after.always(async () => {
  await workNode?.close();
  await apiNode?.close();
  await db?.drop();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
  const redis = new Redis(`${REDIS_URL}/2`);
  try {
    const keys = await redis.keys(`${NAMESPACE}:*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
});

const call = (path: string, init?: Parameters<typeof api>[2]) => api(apiNode.apiUrl, path, init);

test('node types served on another node are listed, validated against and executed there', async (t) => {
  const types = await eventually(async () => {
    const res = await call('/api/v1/workflows/node-types', { token: 'owner-token' });
    return res.body?.items?.length >= NODE_TYPES.length ? res.body.items : undefined;
  }, { timeoutMs: 20_000 });
  t.truthy(types, 'the api node sees the node types of the work node');
  t.deepEqual(types.find((i: { type: string }) => i.type === 'transform').nodes, [`wf-work-${suffix}`]);

  const wf = await call('/api/v1/workflows', {
    method: 'POST',
    token: 'owner-token',
    json: { name: 'remote', steps: [{ id: 's', type: 'trigger', next: ['t'] }, { id: 't', type: 'transform', config: { set: { doubled: '{{trigger.n}}{{trigger.n}}' } }, next: [] }] },
  });
  t.is(wf.status, 201, wf.text);
  const run = await call(`/api/v1/workflows/${wf.body.id}/run`, { method: 'POST', token: 'owner-token', json: { input: { n: 4 }, wait: true } });
  t.is(run.status, 200, run.text);
  t.deepEqual(run.body.output, { doubled: '44' });

  // run-stream on the api node receives the events the work node commits
  const res = await fetch(`${apiNode.apiUrl}/api/v1/workflows/${wf.body.id}/run-stream`, { method: 'POST', headers: { authorization: 'Bearer owner-token', 'content-type': 'application/json' }, body: JSON.stringify({ input: { n: 1 } }) });
  const text = await res.text();
  t.regex(text, /event: step.finished/);
  t.regex(text, /event: run.finished\ndata: \{"status":"completed"/);

  // an inline webhook on the api node runs node types that only the work node serves
  const ws = await call('/api/v1/workspaces', { method: 'POST', token: 'owner-token', json: { name: 'w' } });
  const hookWf = await call('/api/v1/workflows', {
    method: 'POST',
    token: 'owner-token',
    json: { name: 'hook', steps: [{ id: 'h', type: 'webhook', next: ['r'] }, { id: 'r', type: 'respond', config: { status: 200, body: { got: '{{trigger.body.x}}' } }, next: [] }] },
  });
  const binding = await call('/api/v1/workflows/bindings', { method: 'POST', token: 'owner-token', json: { workflow_id: hookWf.body.id, workspace_id: ws.body.id, trigger: 'webhook' } });
  const hook = await call(`/api/v1/workflows/webhook/${binding.body.webhook_token}`, { method: 'POST', json: { x: 'y' } });
  t.is(hook.status, 200, hook.text);
  t.deepEqual(hook.body, { got: 'y' });
});
