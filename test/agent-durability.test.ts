import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import { Sequelize } from 'sequelize';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { startScriptedProvider, type ScriptedProvider } from './helpers/scripted-provider.ts';
import { agentPackagesRoot } from './helpers/agent-kernel.ts';
import { startLocalServer, type LocalServer } from './workflows-local-server.ts';
import { eventually } from './helpers/eventually.ts';
import { killWorkerProcess, startWorkerProcess } from './helpers/worker-process.ts';

const NAMESPACE = `agdur${process.pid}`;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const OWNER = 'owner-token';

let db: TestDatabase;
let apiNode: TestKernel;
let provider: ScriptedProvider;
let server: LocalServer;
let root: string;
let sql: Sequelize;
const workers: ChildProcess[] = [];
const dataDirs: string[] = [];

// a lease short enough for a quick takeover, long enough that a loaded machine does not let a live worker's lapse
const env = (): Record<string, string> => ({
  WORKFLOW_LEASE_SECONDS: '4', WORKFLOW_SWEEP_SECONDS: '1', NAMESPACE, REDIS_URL, RATE_LIMIT_PER_MINUTE: '0',
  SECRET_KEY: 'agent-durability-test-secret-key-0123456789', WORKFLOW_HTTP_ALLOW: '127.0.0.1/32',
  MODEL_OPENAI_BASE_URL: `${provider.url}/v1`, MODEL_ANTHROPIC_BASE_URL: provider.url, DATABASE_URL: db.url,
});

/** A real, separate worker process (it also serves the api-role packages its agent calls, as a work node does over NATS). */
async function startWorker(): Promise<ChildProcess> {
  const child = await startWorkerProcess(root, { ...env(), ROLES: 'api,work' }, dataDirs);
  workers.push(child);
  return child;
}

const kill = killWorkerProcess;

/** Kills every worker still running once the test ends, passed or not (a live worker would keep this file from ending). */
function killWorkersAfter(t: { teardown(fn: () => Promise<void>): void }): void {
  t.teardown(async () => {
    for (const w of workers) if (w.exitCode === null && w.signalCode === null) await kill(w);
  });
}

/** Resolves when `path` is requested of the local server; fails the test after a minute instead of waiting for ever. */
function arrivedWithin(path: string): Promise<void> {
  return Promise.race([server.arrived(path), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${path} was never requested`)), 60_000).unref())]);
}

test.before(async () => {
  provider = await startScriptedProvider();
  server = await startLocalServer();
  db = await createTestDatabase('agent_durability');
  root = agentPackagesRoot([['tools', 'http_request']]);
  // the api node consumes no work queue: every agent run executes in a worker process
  apiNode = await startTestKernel({ roots: [root], env: { ...env(), ROLES: 'api' } });
  sql = new Sequelize(db.url, { dialect: 'postgres', logging: false });
});

test.after.always(async () => {
  for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
  await sql?.close();
  await apiNode?.close();
  await db?.drop();
  await Promise.all([provider?.close(), server?.close()]);
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

async function post(path: string, json: unknown): Promise<any> {
  const res = await call(path, { method: 'POST', token: OWNER, json });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function taskReaches(id: string, statuses: string[]): Promise<any> {
  let task: any;
  await eventually(async () => statuses.includes((task = (await call(`/api/v1/tasks/${id}`, { token: OWNER })).body)?.status), { timeoutMs: 60_000 });
  return task;
}

const checkpoints = async (taskId: string) =>
  (await sql.query("SELECT s.step_id, s.status FROM workflow_step_receipts s JOIN workflow_runs r ON r.id = s.run_id WHERE r.trigger->>'task_id' = $1 AND s.step_id LIKE 'agent:%' ORDER BY s.ord", { bind: [taskId] }))[0] as { step_id: string; status: string }[];

test.serial('a worker killed mid-run: the agent run resumes from its checkpoints elsewhere, repeating no model turn and no tool call', async (t) => {
  killWorkersAfter(t);
  const ws = await post('/api/v1/workspaces', { name: 'Ops' });
  await post('/api/v1/api-keys', { name: 'Key', provider: 'openai', api_key: 'sk-test-0123456789abcdef', default_model: 'gpt-test', is_default: true });
  const agent = await post('/api/v1/agents', { name: 'Buyer', instructions: 'You order supplies.', workspace_id: ws.id, tools: ['tasks', 'http_request'] });
  provider.replies.push({ text: 'Ordering.', tool_calls: [{ name: 'tasks', arguments: { op: 'create', title: 'Order toner' } }] });
  provider.replies.push({ hang: true });
  provider.replies.push({ text: 'Toner ordered.' });
  const task = await post('/api/v1/tasks', { title: 'We are out of toner', workspace_id: ws.id, assignee: { type: 'agent', id: agent.id } });

  const first = await startWorker();
  await eventually(async () => provider.requests.length >= 2, { timeoutMs: 60_000 });
  t.deepEqual((await checkpoints(task.id)).map((c) => `${c.step_id} ${c.status}`), ['agent:r0001.model completed', 'agent:r0001.tool.0 completed'], 'round 1 and its tool result were committed before round 2 started');
  await kill(first);

  await startWorker();
  const done = await taskReaches(task.id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  t.is(provider.requests.length, 3, 'round 1 was not asked again; round 2 was asked again (its answer never arrived)');
  const created = await call(`/api/v1/tasks?workspace=${ws.id}&q=Order%20toner`, { token: OWNER });
  const tool = (await sql.query("SELECT s.output FROM workflow_step_receipts s JOIN workflow_runs r ON r.id = s.run_id WHERE r.trigger->>'task_id' = $1 AND s.step_id = 'agent:r0001.tool.0'", { bind: [task.id] }))[0] as { output: unknown }[];
  t.is(created.body.items.filter((x: { title: string }) => x.title === 'Order toner').length, 1, `the completed tool call did not run again: ${JSON.stringify(tool)} ${created.text}`);
  const [run] = (await sql.query("SELECT recoveries FROM workflow_runs WHERE trigger->>'task_id' = $1", { bind: [task.id] }))[0] as { recoveries: number }[];
  t.true(run.recoveries >= 1);
  for (const w of workers) await kill(w);
});

test.serial('a non-idempotent tool in flight when its worker died is marked for reconciliation, never repeated', async (t) => {
  killWorkersAfter(t);
  const agents = await call('/api/v1/agents?q=Buyer', { token: OWNER });
  const agent = agents.body.items[0];
  const ws = agent.workspace_id;
  provider.replies.push({ text: '', tool_calls: [{ name: 'http_request', arguments: { method: 'POST', url: `${server.url}/slow-pay?ms=8000`, body: '{"amount":10}' } }] });
  const task = await post('/api/v1/tasks', { title: 'Pay the supplier', workspace_id: ws, assignee: { type: 'agent', id: agent.id } });
  const arrived = arrivedWithin('/slow-pay');
  const first = await startWorker();
  await arrived;
  t.deepEqual((await checkpoints(task.id)).map((c) => `${c.step_id} ${c.status}`), ['agent:r0001.model completed', 'agent:r0001.tool.0 running']);
  await kill(first);
  await startWorker();
  const failed = await taskReaches(task.id, ['failed', 'completed']);
  t.is(failed.status, 'failed');
  t.deepEqual((await checkpoints(task.id)).map((c) => `${c.step_id} ${c.status}`), ['agent:r0001.model completed', 'agent:r0001.tool.0 needs_reconciliation']);
  const [run] = (await sql.query("SELECT status, error FROM workflow_runs WHERE trigger->>'task_id' = $1", { bind: [task.id] }))[0] as { status: string; error: { code: string } }[];
  t.like(run, { status: 'failed', error: { code: 'UNCERTAIN_EFFECT' } });
  t.is(server.hits.get('/slow-pay'), 1, 'the payment was not sent again');
});
