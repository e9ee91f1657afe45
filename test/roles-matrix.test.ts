import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { USER_ROLES, roleAllows, type Role } from '../kernel/tenancy/roles.ts';
import { useFullKernel } from './helpers/full-kernel.ts';
import { linearWorkflow } from './workflows-helpers.ts';


const ids: Record<string, string> = {};
const PASSWORD = 'correct horse battery staple';

/** One call of a route family: who may make it, and what a refused call must leave unchanged. */
interface Probe {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  json?: unknown;
  /** the least role that may call it (docs/roles.md) */
  least: Role;
  /** what the least role's call answers: a success, or where success needs more than this test sets up, a status past the role check */
  ok: number[];
  /** the body the least role sends instead of `json` (one that fails after the role check) */
  leastJson?: unknown;
  /** what a refused call must not change, read with the refused caller's token or as the owner */
  state?: (token: string) => Promise<unknown>;
}


const fixture = useFullKernel(test, 'roles_matrix', async ({ make, tokens }) => {
  const owner = tokens.owner;
  ids.ws = (await make(owner, '/api/v1/workspaces', { name: 'Roles' })).id;
  ids.doomedWs = (await make(owner, '/api/v1/workspaces', { name: 'Doomed' })).id;
  ids.task = (await make(owner, '/api/v1/tasks', { title: 'Probe me', workspace_id: ids.ws })).id;
  ids.doomedTask = (await make(owner, '/api/v1/tasks', { title: 'Delete me', workspace_id: ids.ws })).id;
  ids.wf = (await make(owner, '/api/v1/workflows', linearWorkflow('roles'))).id;
  ids.binding = (await make(owner, '/api/v1/workflows/bindings', { workflow_id: ids.wf, workspace_id: ids.ws, trigger: 'manual' })).id;
  ids.run = (await make(owner, `/api/v1/workflows/${ids.wf}/run`, { workspace_id: ids.ws, wait: true })).run_id;
  ids.doomedAgent = (await make(owner, '/api/v1/agents', { name: 'Doomed agent', workspace_id: ids.ws })).id;
});

const get = async (path: string, token = fixture.fk.tokens.owner) => {
  const res = await fixture.fk.call(path, { token });
  return { status: res.status, body: res.body };
};
const totalOf = (path: string) => async (token?: string) => (await get(path, token)).body?.total;
const read = (path: string, least: Role = 'viewer'): Probe => ({ method: 'GET', path, least, ok: [200] });

/** Route families, each probed with every role. Paths are functions of the ids made above. */
const FAMILIES: Record<string, () => Probe[]> = {
  'auth, users': () => [
    read('/api/v1/auth/me'),
    read('/api/v1/entities/me'),
    read('/api/v1/users', 'admin'),
    { method: 'POST', path: '/api/v1/users', json: { email: 'probe@roles.test', password: PASSWORD, role: 'viewer' }, least: 'admin', ok: [201], state: () => totalOf('/api/v1/users?limit=200')() },
    { method: 'PUT', path: '/api/v1/tasks/board-preferences', json: { mode: 'list' }, least: 'viewer', ok: [200] },
  ],
  workspaces: () => [
    read('/api/v1/workspaces'),
    read(`/api/v1/workspaces/${ids.ws}/activity`),
    { method: 'POST', path: '/api/v1/workspaces', json: { name: 'Probe' }, least: 'member', ok: [201], state: () => totalOf('/api/v1/workspaces?include_archived=true')() },
    { method: 'PUT', path: `/api/v1/workspaces/${ids.ws}`, json: { description: 'changed' }, least: 'member', ok: [200], state: async () => (await get(`/api/v1/workspaces/${ids.ws}`)).body.version },
    { method: 'PUT', path: `/api/v1/workspaces/${ids.ws}/governance`, json: { approval_mode: 'confirm_changes' }, least: 'admin', ok: [200], state: async () => (await get(`/api/v1/workspaces/${ids.ws}/governance`)).body },
    { method: 'DELETE', path: `/api/v1/workspaces/${ids.doomedWs}`, least: 'admin', ok: [200], state: async () => (await get(`/api/v1/workspaces/${ids.doomedWs}`)).body.archived_at },
  ],
  tasks: () => [
    read('/api/v1/tasks'),
    read(`/api/v1/tasks/${ids.task}/history`),
    { method: 'POST', path: '/api/v1/tasks', json: { title: 'Probe', workspace_id: ids.ws }, least: 'member', ok: [201], state: () => totalOf('/api/v1/tasks?limit=1')() },
    { method: 'PUT', path: `/api/v1/tasks/${ids.task}`, json: { title: 'Renamed' }, least: 'member', ok: [200], state: async () => (await get(`/api/v1/tasks/${ids.task}`)).body.version },
    { method: 'POST', path: `/api/v1/tasks/${ids.task}/logs`, json: { body: 'A note' }, least: 'member', ok: [201], state: () => totalOf(`/api/v1/tasks/${ids.task}/logs`)() },
    { method: 'DELETE', path: `/api/v1/tasks/${ids.doomedTask}`, least: 'member', ok: [204], state: async () => (await get(`/api/v1/tasks/${ids.doomedTask}`)).status },
  ],
  'task collections': () => [
    read('/api/v1/tasks/categories'),
    read('/api/v1/tasks/sla-policies'),
    { method: 'POST', path: '/api/v1/tasks/categories', json: { name: 'Probe' }, least: 'member', ok: [201], state: () => totalOf('/api/v1/tasks/categories')() },
    { method: 'POST', path: '/api/v1/tasks/templates', json: { name: 'Probe', title: 'Do {{thing}}', defaults: {} }, least: 'member', ok: [201], state: () => totalOf('/api/v1/tasks/templates')() },
    { method: 'POST', path: '/api/v1/tasks/sla-policies', json: { name: 'Probe', targets: { '1': { response_minutes: 5, resolution_minutes: 60 } } }, least: 'admin', ok: [201], state: () => totalOf('/api/v1/tasks/sla-policies')() },
  ],
  'workflows, bindings, runs': () => [
    read('/api/v1/workflows'),
    read(`/api/v1/workflows/runs/${ids.run}`),
    { method: 'POST', path: '/api/v1/workflows', json: linearWorkflow('probe'), least: 'member', ok: [201], state: () => totalOf('/api/v1/workflows')() },
    { method: 'POST', path: '/api/v1/workflows/bindings', json: { workflow_id: ids.wf, workspace_id: ids.ws, trigger: 'manual' }, least: 'member', ok: [201], state: () => totalOf('/api/v1/workflows/bindings')() },
    {
      method: 'PUT', path: `/api/v1/workflows/bindings/${ids.binding}`, json: { enabled: false }, least: 'member', ok: [200],
      state: async () => (await get(`/api/v1/workflows/bindings?limit=200`)).body.items.find((b: { id: string }) => b.id === ids.binding),
    },
    { method: 'POST', path: `/api/v1/workflows/${ids.wf}/run`, json: { workspace_id: ids.ws }, least: 'member', ok: [202], state: () => totalOf('/api/v1/workflows/runs')() },
    // the run is finished: a member gets past the role check to the run's own 409
    { method: 'POST', path: `/api/v1/workflows/runs/${ids.run}/cancel`, least: 'member', ok: [409], state: async () => (await get(`/api/v1/workflows/runs/${ids.run}`)).body.status },
  ],
  'model keys': () => [
    read('/api/v1/api-keys'),
    { method: 'POST', path: '/api/v1/api-keys', json: { name: 'Probe', provider: 'openai', api_key: 'sk-test-0123456789abcdef', default_model: 'gpt-test' }, least: 'admin', ok: [201], state: () => totalOf('/api/v1/api-keys')() },
  ],
  agents: () => [
    read('/api/v1/agents'),
    read('/api/v1/executions'),
    { method: 'POST', path: '/api/v1/agents', json: { name: 'Probe', workspace_id: ids.ws }, least: 'member', ok: [201], state: () => totalOf('/api/v1/agents')() },
    { method: 'DELETE', path: `/api/v1/agents/${ids.doomedAgent}`, least: 'admin', ok: [204], state: async () => (await get(`/api/v1/agents/${ids.doomedAgent}`)).status },
  ],
  'goals, plans': () => [
    read('/api/v1/goals'),
    read('/api/v1/plans'),
    { method: 'POST', path: '/api/v1/goals', json: { workspace_id: ids.ws, objective: 'Probe the roles' }, least: 'member', ok: [201], state: () => totalOf('/api/v1/goals')() },
  ],
  chat: () => [
    read('/api/v1/chat/conversations'),
    // an empty message fails validation, after the role check: no model is called
    { method: 'POST', path: '/api/v1/chat/message', json: { message: 'hello', workspace_context: false }, leastJson: { message: '', workspace_context: false }, least: 'member', ok: [422], state: (token) => totalOf('/api/v1/chat/conversations')(token) },
  ],
  jobs: () => [
    read('/api/v1/jobs'),
    // an empty job fails validation, after the role check: nothing is stored either way
    { method: 'POST', path: '/api/v1/jobs', json: {}, least: 'member', ok: [422], state: (token) => totalOf('/api/v1/jobs')(token) },
    read('/api/v1/jobs/executors'),
    // checking a schedule stores nothing: a viewer may
    { method: 'POST', path: '/api/v1/jobs/preview', json: { schedule: { kind: 'cron', cron: '0 9 * * *', timezone: 'UTC' } }, least: 'viewer', ok: [200] },
  ],
  usage: () => [read('/api/v1/usage/summary')],
  workers: () => [read('/api/v1/workers', 'admin')],
  capabilities: () => [read('/api/v1/capability-packages', 'admin'), read(`/api/v1/workspaces/${ids.ws}/capabilities`)],
};

for (const [family, probes] of Object.entries(FAMILIES)) {
  test.serial(`${family}: a role below the route's gets 403 problem+json and changes nothing; the least role gets through`, async (t) => {
    const { call, tokens } = fixture.fk;
    for (const probe of probes()) {
      const label = `${probe.method} ${probe.path}`;
      for (const role of USER_ROLES) {
        const token = tokens[role];
        if (!roleAllows(role, probe.least)) {
          const before = await probe.state?.(token);
          const res = await call(probe.path, { method: probe.method, token, json: probe.json });
          t.is(res.status, 403, `${label} as ${role}: ${res.text}`);
          t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/, label);
          t.like(res.body, { code: 'FORBIDDEN', required_role: probe.least, role }, label);
          if (probe.state) t.deepEqual(await probe.state(token), before, `${label} as ${role} changed nothing`);
        } else if (role === probe.least || probe.method === 'GET') {
          const res = await call(probe.path, { method: probe.method, token, json: role === probe.least ? (probe.leastJson ?? probe.json) : probe.json });
          t.true(probe.ok.includes(res.status), `${label} as ${role}: ${res.status} ${res.text}`);
        }
      }
    }
  });
}

test('a viewer is a role like the others: it can be given, and it is what the caller is told', async (t) => {
  const { call, tokens } = fixture.fk;
  t.like((await call('/api/v1/auth/me', { token: tokens.viewer })).body, { role: 'viewer' });
  const users = await call('/api/v1/users?limit=200', { token: tokens.owner });
  t.true(users.body.items.some((u: { role: string }) => u.role === 'viewer'));
  const bad = await call('/api/v1/users', { method: 'POST', token: tokens.owner, json: { email: 'wrong@roles.test', password: PASSWORD, role: 'superuser' } });
  t.is(bad.status, 422);
  t.is(bad.body.errors[0].field, 'role');
});

/** `| METHOD | \`/path\` | role |` rows of docs/roles.md. */
function documentedRoutes(): string[] {
  const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'roles.md'), 'utf8');
  return [...doc.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| (\w+) \|/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`).sort();
}

test('docs/roles.md lists every /api/v1 route with the role the server enforces, and no other', async (t) => {
  const doc = (await fixture.fk.call('/api/openapi.json')).body;
  const served: string[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const [method, op] of Object.entries<any>(item)) {
      if (!op?.responses) continue;
      const who = op['x-required-role'] ?? (op.security?.length === 0 ? 'public' : op.security?.[0]?.workerToken ? 'worker' : 'undeclared');
      served.push(`${method.toUpperCase()} ${path.slice('/api/v1'.length)} ${who}`);
    }
  }
  t.deepEqual(documentedRoutes(), served.sort());
});
