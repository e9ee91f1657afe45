import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { startWorkerProcess } from './helpers/worker-process.ts';
import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import { Sequelize } from 'sequelize';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { receipt, workflowsRoot } from './workflows-helpers.ts';
import { startLocalServer, type LocalServer } from './workflows-local-server.ts';

const NAMESPACE = `wfdur${process.pid}`;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ENGINE_ENV = { WORKFLOW_HTTP_ALLOW: '127.0.0.1/32', WORKFLOW_LEASE_SECONDS: '2', WORKFLOW_SWEEP_SECONDS: '1', NAMESPACE, REDIS_URL };

let db: TestDatabase;
let apiNode: TestKernel;
let server: LocalServer;
let root: string;
let sql: Sequelize;
const workers: ChildProcess[] = [];
const dataDirs: string[] = [];

/** Starts a real, separate worker process (roles work) on the same PostgreSQL and Redis. */
async function startWorker(): Promise<ChildProcess> {
  const child = await startWorkerProcess(root, { ...ENGINE_ENV, ROLES: 'work', DATABASE_URL: db.url }, dataDirs);
  workers.push(child);
  return child;
}

test.before(async () => {
  server = await startLocalServer();
  db = await createTestDatabase('wf_durability');
  root = workflowsRoot();
  // the api node runs no worker: every queued run executes in a worker process
  apiNode = await startTestKernel({ roots: [root], env: { ...ENGINE_ENV, ROLES: 'api', DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0' } });
  sql = new Sequelize(db.url, { dialect: 'postgres', logging: false });
});

test.after.always(async () => {
  for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
  await sql?.close();
  await apiNode?.close();
  await db?.drop();
  await server?.close();
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  if (root) rmSync(root, { recursive: true, force: true });
  const redis = new Redis(`${REDIS_URL}/2`);
  try {
    const keys = await redis.keys(`${NAMESPACE}:*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
});

const call = (path: string, init?: Parameters<typeof api>[2]) => api(apiNode.apiUrl, path, init);

async function until(runId: string, statuses: string[], timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = (await call(`/api/v1/workflows/runs/${runId}`, { token: 'owner-token' })).body;
    if (statuses.includes(last?.status)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} stuck in ${last?.status}: ${JSON.stringify(last)}`);
}

async function start(definition: Record<string, unknown>): Promise<string> {
  const wf = await call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: definition });
  if (wf.status !== 201) throw new Error(wf.text);
  const run = await call(`/api/v1/workflows/${wf.body.id}/run`, { method: 'POST', token: 'owner-token', json: { input: {} } });
  if (run.status !== 202) throw new Error(run.text);
  return run.body.run_id;
}

test.serial('a worker killed mid-run: the run continues elsewhere from its receipts, no completed step runs twice, an uncertain step is reconciled, not repeated', async (t) => {
  const certain = await start({
    name: 'certain',
    steps: [
      { id: 'start', type: 'trigger', next: ['first'] },
      { id: 'first', type: 'http', config: { url: `${server.url}/count/first` }, next: ['slow'] },
      { id: 'slow', type: 'http', config: { url: `${server.url}/slow?ms=4000` }, next: ['after'] },
      { id: 'after', type: 'http', config: { url: `${server.url}/count/after` }, next: [] },
    ],
  });
  const uncertain = await start({
    name: 'uncertain',
    steps: [
      { id: 'start', type: 'trigger', next: ['pay'] },
      { id: 'pay', type: 'http', config: { method: 'POST', url: `${server.url}/slow-pay?ms=4000`, body: { amount: 10 } }, next: ['receipt'] },
      { id: 'receipt', type: 'http', config: { url: `${server.url}/count/receipt` }, next: [] },
    ],
  });
  const orphan = await start({
    name: 'orphan',
    steps: [
      { id: 'start', type: 'trigger', next: ['slow'] },
      { id: 'slow', type: 'http', config: { url: `${server.url}/slow-orphan?ms=4000` }, next: [] },
    ],
  });
  const inFlight = Promise.all([server.arrived('/slow'), server.arrived('/slow-pay'), server.arrived('/slow-orphan')]);
  const first = await startWorker();
  await inFlight;
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));

  const [runBefore] = (await sql.query('SELECT status, lease_owner FROM workflow_runs WHERE id = $1', { bind: [certain] }))[0] as { status: string; lease_owner: string }[];
  t.is(runBefore.status, 'running', 'the dead worker left the run running');
  t.truthy(runBefore.lease_owner);
  const before = (await call(`/api/v1/workflows/runs/${certain}`, { token: 'owner-token' })).body;
  t.is(receipt(before, 'first').status, 'completed');
  t.is(receipt(before, 'slow'), undefined, 'a step without an uncertain effect commits nothing before it runs');
  const payMarker = receipt((await call(`/api/v1/workflows/runs/${uncertain}`, { token: 'owner-token' })).body, 'pay');
  t.is(payMarker.status, 'running', 'the uncertain step committed an in-flight marker before running');

  // cancel works on a run whose worker vanished, and stays cancelled when another worker comes
  const cancelled = await call(`/api/v1/workflows/runs/${orphan}/cancel`, { method: 'POST', token: 'owner-token' });
  t.is(cancelled.status, 200, cancelled.text);
  t.is(cancelled.body.status, 'cancelled');

  await startWorker();
  const done = await until(certain, ['completed', 'failed']);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.is(server.hits.get('/count/first'), 1, 'the completed step did not run again');
  t.is(server.hits.get('/slow'), 2, 'the step in flight (no uncertain effect) ran again');
  t.is(server.hits.get('/count/after'), 1);
  t.is(receipt(done, 'first').started_at, receipt(before, 'first').started_at, 'the committed receipt was kept');
  t.true(done.recoveries >= 1);

  const stopped = await until(uncertain, ['failed', 'completed']);
  t.is(stopped.status, 'failed');
  t.is(stopped.error.code, 'UNCERTAIN_EFFECT');
  t.is(receipt(stopped, 'pay').status, 'needs_reconciliation');
  t.is(server.hits.get('/slow-pay'), 1, 'the uncertain step was not repeated');
  const refused = await call(`/api/v1/workflows/runs/${uncertain}/retry`, { method: 'POST', token: 'owner-token', json: {} });
  t.is(refused.status, 409);
  t.is(refused.body.code, 'WORKFLOWS_ERR_UNRECONCILED_EFFECT');
  const reconciled = await call(`/api/v1/workflows/runs/${uncertain}/step`, { method: 'POST', token: 'owner-token', json: { step_id: 'pay', action: 'reconcile', outcome: 'succeeded', output: { status: 200, confirmed: 'by hand' } } });
  t.is(reconciled.status, 200, reconciled.text);
  const retried = await call(`/api/v1/workflows/runs/${uncertain}/retry`, { method: 'POST', token: 'owner-token', json: {} });
  t.is(retried.status, 202, retried.text);
  const finished = await until(retried.body.run_id, ['completed', 'failed']);
  t.is(finished.status, 'completed');
  t.is(server.hits.get('/slow-pay'), 1, 'still not repeated after the retry');
  t.is(server.hits.get('/count/receipt'), 1);
  const family = await call(`/api/v1/workflows/runs/${retried.body.run_id}/family`, { token: 'owner-token' });
  t.deepEqual(family.body.runs.map((r: { id: string }) => r.id), [uncertain, retried.body.run_id]);
  t.true(family.body.runs[0].recovery.sweeper_recoveries >= 1);
  t.is((await until(orphan, ['cancelled'])).status, 'cancelled');
  t.is(server.hits.get('/slow-orphan'), 1, 'a cancelled run is not taken up again');
});

test.serial('a worker killed in the middle of a step with each: the next worker goes on at the first element without a receipt', async (t) => {
  const paths = ['/count/each-0', '/count/each-1', '/slow-each?ms=4000', '/count/each-3'];
  // no worker of the test before may take this run
  for (const w of workers.filter((x) => x.exitCode === null && x.signalCode === null)) {
    w.kill('SIGKILL');
    await new Promise((r) => w.once('exit', r));
  }
  const runId = await start({
    name: 'each',
    steps: [
      { id: 'start', type: 'trigger', next: ['fetch'] },
      { id: 'fetch', type: 'http', config: { each: paths, url: `${server.url}{{item}}` }, next: [] },
    ],
  });
  const payRun = await start({
    name: 'each uncertain',
    steps: [
      { id: 'start', type: 'trigger', next: ['pay'] },
      { id: 'pay', type: 'http', config: { each: ['/count/pay-0', '/slow-pay-each?ms=4000', '/count/pay-2'], method: 'POST', url: `${server.url}{{item}}`, body: { n: '{{item_index}}' } }, next: [] },
    ],
  });
  const inFlight = Promise.all([server.arrived('/slow-each'), server.arrived('/slow-pay-each')]);
  const worker = await startWorker();
  await inFlight;
  worker.kill('SIGKILL');
  await new Promise((r) => worker.once('exit', r));
  const before = (await call(`/api/v1/workflows/runs/${runId}`, { token: 'owner-token' })).body;
  t.is(receipt(before, 'fetch:each.1')?.status, 'completed', 'elements 0 and 1 committed their receipts');
  t.falsy(receipt(before, 'fetch'));

  await startWorker();
  const done = await until(runId, ['completed', 'failed']);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual([server.hits.get('/count/each-0'), server.hits.get('/count/each-1'), server.hits.get('/slow-each'), server.hits.get('/count/each-3')], [1, 1, 2, 1]);
  t.deepEqual(receipt(done, 'fetch').output.map((o: { url: string }) => new URL(o.url).pathname), ['/count/each-0', '/count/each-1', '/slow-each', '/count/each-3']);
  t.is(receipt(done, 'fetch:each.0').started_at, receipt(before, 'fetch:each.0').started_at, 'a committed element is kept');

  // an element with an uncertain effect in flight is reconciled on its own, never repeated
  const stopped = await until(payRun, ['failed', 'completed']);
  t.is(stopped.status, 'failed');
  t.is(stopped.error.code, 'UNCERTAIN_EFFECT');
  t.is(receipt(stopped, 'pay:each.1').status, 'needs_reconciliation');
  const refused = await call(`/api/v1/workflows/runs/${payRun}/retry`, { method: 'POST', token: 'owner-token', json: {} });
  t.is(refused.status, 409);
  const reconciled = await call(`/api/v1/workflows/runs/${payRun}/step`, { method: 'POST', token: 'owner-token', json: { step_id: 'pay:each.1', action: 'reconcile', outcome: 'succeeded', output: { status: 200, confirmed: 'by hand' } } });
  t.is(reconciled.status, 200, reconciled.text);
  const retried = await call(`/api/v1/workflows/runs/${payRun}/retry`, { method: 'POST', token: 'owner-token', json: {} });
  t.is(retried.status, 202, retried.text);
  const paid = await until(retried.body.run_id, ['completed', 'failed']);
  t.is(paid.status, 'completed', JSON.stringify(paid.error));
  t.deepEqual([server.hits.get('/count/pay-0'), server.hits.get('/slow-pay-each'), server.hits.get('/count/pay-2')], [1, 1, 1], 'no element was repeated');
  t.deepEqual(receipt(paid, 'pay').output[1], { status: 200, confirmed: 'by hand' });
});
