import test from 'ava';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { spawnKernel, type KernelProcess } from './helpers/process.ts';
import { createTestDatabase } from './helpers/pg.ts';
import { eventually } from './helpers/eventually.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const procs: KernelProcess[] = [];
let dropDb: (() => Promise<void>) | undefined;

test.after.always(async () => {
  for (const p of procs) p.cleanup();
  await dropDb?.();
});

test('two processes over NATS serve one API, call each other, and survive one being killed', async (t) => {
  const db = await createTestDatabase('cluster');
  dropDb = db.drop;
  const common = {
    TRANSPORTER: 'nats://127.0.0.1:4222',
    NAMESPACE: `test-${randomUUID().slice(0, 8)}`,
    DATABASE_URL: db.url,
    CAPABILITY_PATHS: `${join(FIXTURES, 'packages')},${join(FIXTURES, 'cluster')}`,
    REQUEST_TIMEOUT_SECONDS: '3',
  };
  const api = await spawnKernel({ ...common, ROLES: 'api', NODE_ID: 'node-api' });
  const work = await spawnKernel({ ...common, ROLES: 'work', NODE_ID: 'node-work' });
  procs.push(api, work);
  t.true(await api.waitReady(), api.output());

  // the api node's gateway serves a route whose action lives on the work node, which calls back
  const where = await eventually(async () => {
    const r = await fetch(`${api.apiUrl}/api/v1/worker-echo/where`);
    return r.status === 200 ? r.json() : undefined;
  }, { timeoutMs: 30_000 });
  t.deepEqual(where, { served_by: 'node-work', greeting: { message: 'hello', version: 1 } }, work.output());

  // packages of both nodes are listed, each with its node
  const list = await (await fetch(`${api.apiUrl}/api/v1/capability-packages`, { headers: { Authorization: 'Bearer owner-token' } })).json();
  const stateOf = (name: string, node: string) => list.items.find((p: { name: string; node: string }) => p.name === name && p.node === node)?.state;
  t.is(stateOf('worker-echo', 'node-work'), 'loaded');
  t.is(stateOf('worker-echo', 'node-api'), 'skipped', 'a package outside a node\'s roles is listed as skipped there');
  t.is(stateOf('@test/greeter', 'node-api'), 'loaded');
  t.is(stateOf('@test/greeter', 'node-work'), 'skipped');
  t.is(stateOf('@test/auth', 'node-api'), 'loaded');

  // kill the work node outright: the api node keeps serving, and the lost route is a clear 503/504
  work.kill('SIGKILL');
  await work.exited;
  t.is((await fetch(`${api.apiUrl}/api/v1/greeter/open`)).status, 200);
  // until the heartbeat timeout marks the node gone, a call may time out (504); after it, 503
  const seen = new Set<number>();
  const lost = await eventually(async () => {
    const r = await fetch(`${api.apiUrl}/api/v1/worker-echo/where`);
    seen.add(r.status);
    return r.status === 503 ? r.json() : undefined;
  }, { timeoutMs: 75_000 });
  t.deepEqual([...seen].filter((s) => s !== 503 && s !== 504), [], 'only a clear 503 or 504 while the node is being declared gone');
  t.like(lost, { status: 503, code: 'SERVICE_UNAVAILABLE' });
  // after the gateway has regenerated its routes without the gone node's, the route is still a
  // 503 (its service runs on no node), not a 404; a path no service ever had stays a 404
  await new Promise((r) => setTimeout(r, 1000));
  const later = await fetch(`${api.apiUrl}/api/v1/worker-echo/where`);
  t.is(later.status, 503);
  t.like(await later.json(), { code: 'SERVICE_UNAVAILABLE' });
  t.is((await fetch(`${api.apiUrl}/api/v1/worker-echo/elsewhere`)).status, 404);
});
