import test from 'ava';
import { join } from 'node:path';
import { BUILTIN_ROOTS } from '../kernel/capabilities/discover.ts';
import { operationsOf, sweep } from './helpers/bad-input-sweep.ts';
import { api, useKernel } from './helpers/kernel.ts';

/**
 * The short form of bench/bad-input-sweep.ts, on a kernel of every built-in package: every
 * documented operation, in groups (each its own test, user session and records, so a logout or
 * a delete in one group takes nothing from another), against hostile ids, query values and
 * bodies. No 5xx, no stack trace, no hang; a numeric query value out of range is a 422 naming it.
 */

const ROOT = join(import.meta.dirname, '..');
const ADMIN = { email: 'sweep-owner@example.com', password: 'a long sweep password 42' };
const fixture = useKernel(test, {
  label: 'bad_input_sweep',
  roots: BUILTIN_ROOTS.map((r) => join(ROOT, r)),
  env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, LOGIN_FAILURES_PER_ADDRESS: '100000' },
});

const GROUPS: Record<string, RegExp> = {
  tasks: /^\/api\/v1\/(tasks|public)\b/,
  workflows: /^\/api\/v1\/workflows\b/,
  workspaces: /^\/api\/v1\/workspaces\b/,
  identity: /^\/api\/v1\/(auth|users|entities)\b/,
  agents: /^\/api\/v1\/(agents|goals|plans|executions)\b/,
  'chat and models': /^\/api\/v1\/(chat|api-keys)\b/,
};
const grouped = (path: string) => Object.values(GROUPS).some((re) => re.test(path));

async function ok(path: string, init: Parameters<typeof api>[2]): Promise<any> {
  const res = await api(fixture.kernel.apiUrl, path, init);
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

const login = async (): Promise<string> => (await ok('/api/v1/auth/login', { method: 'POST', json: ADMIN })).access_token;

for (const [group, only] of [...Object.entries(GROUPS).map(([name, re]) => [name, (path: string) => re.test(path)] as const), ['everything else', (path: string) => !grouped(path)] as const]) {
  // one group at a time: each finishes (and resets ava's timeout) in its own few seconds
  test.serial(`${group}: hostile ids, query values and bodies get no 5xx, stack trace or hang; numeric query values out of range are 422s naming them`, async (t) => {
    const token = await login();
    const doc = await ok('/api/openapi.json', {});
    const ops = operationsOf(doc).filter((op) => only(op.path));
    t.true(ops.length > 0, 'the group has documented operations');
    const ws = await ok('/api/v1/workspaces', { method: 'POST', token, json: { name: `Sweep ${group}` } });
    const task = await ok('/api/v1/tasks', { method: 'POST', token, json: { title: 'Sweep', workspace_id: ws.id } });
    const cpu = process.cpuUsage();
    const result = await sweep(doc, { base: fixture.kernel.apiUrl, login, only, realIds: [ws.id, task.id], form: 'short', concurrency: 4 });
    const used = process.cpuUsage(cpu);
    t.log(`${result.requests} requests over ${ops.length} operations; ${((used.user + used.system) / 1e6).toFixed(1)} s CPU (client and kernel)`);
    t.true(result.requests >= ops.length * 5);
    t.deepEqual(result.failures.slice(0, 30), [], `${result.failures.length} answered 5xx, showed a stack trace or did not answer`);
    t.deepEqual(result.unnamed.slice(0, 30), [], `${result.unnamed.length} hostile numeric query values were not a 422 naming the parameter`);
  });
}

test('the groups cover the whole API', async (t) => {
  const doc = await ok('/api/openapi.json', {});
  const ops = operationsOf(doc);
  t.true(ops.length > 100, `${ops.length} operations documented`);
  t.true(ops.some((op) => op.path === '/api/v1/api-keys' && op.query.some((q) => q.name === 'offset' && q.numeric)), 'query parameters are read from the document');
});
