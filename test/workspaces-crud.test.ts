import test from 'ava';
import { randomBytes } from 'node:crypto';
import { startWorkspacesKernel, type WorkspacesKernel } from './helpers/workspaces-kernel.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';

let ws: WorkspacesKernel;
test.before(async () => {
  ws = await startWorkspacesKernel('workspaces_crud');
});
test.after.always(async () => {
  await ws?.close();
});

const OWNER = 'owner-token';
const unique = () => `t${randomBytes(4).toString('hex')}`;
const fieldsOf = (body: any): string[] => (body?.errors ?? []).map((e: { field: string }) => e.field).sort();

test('create answers 201 with the new workspace, and GET returns it with its dashboard', async (t) => {
  const res = await ws.call('/api/v1/workspaces', { method: 'POST', token: OWNER, json: { name: '  Support desk ', description: 'First line', category: 'support' } });
  t.is(res.status, 201, res.text);
  t.like(res.body, { entity_id: 'e-1', name: 'Support desk', description: 'First line', category: 'support', status: 'active', provider_access: 'none', archived_at: null, created_by: 'u-owner', version: 1 });
  t.regex(res.body.id, /^[0-9a-f-]{36}$/);
  t.is(new Date(res.body.created_at).toISOString(), res.body.created_at);
  const got = await ws.call(`/api/v1/workspaces/${res.body.id}`, { token: 'member-token' });
  t.is(got.status, 200);
  const { dashboard, ...workspace } = got.body;
  t.deepEqual(workspace, res.body);
  t.is(dashboard.workspaces.activity_total, 1, 'the package contributes its own recent activity');
  t.is(dashboard.workspaces.recent_activity[0].kind, 'workspace.created');
});

test('description and category are optional', async (t) => {
  const res = await ws.call('/api/v1/workspaces', { method: 'POST', token: 'member-token', json: { name: 'Bare' } });
  t.is(res.status, 201);
  t.like(res.body, { description: '', category: '', created_by: 'u-member' });
});

test('the list pages newest first with total, limit and offset', async (t) => {
  const tag = unique();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await ws.createWorkspace(OWNER, { name: `${tag} ${i}` })).id);
  const first = await ws.call(`/api/v1/workspaces?q=${tag}&limit=2`, { token: OWNER });
  t.is(first.status, 200);
  t.like(first.body, { total: 5, limit: 2, offset: 0 });
  t.deepEqual(first.body.items.map((w: { id: string }) => w.id), [ids[4], ids[3]]);
  const last = await ws.call(`/api/v1/workspaces?q=${tag}&limit=2&offset=4`, { token: OWNER });
  t.deepEqual(last.body.items.map((w: { id: string }) => w.id), [ids[0]]);
  const all = await ws.call(`/api/v1/workspaces?q=${tag.toUpperCase()}`, { token: OWNER });
  t.is(all.body.total, 5, 'q ignores case');
  t.is(all.body.limit, 50, 'default page size');
});

test('the list filters by status and leaves archived workspaces out unless asked', async (t) => {
  const tag = unique();
  const active = await ws.createWorkspace(OWNER, { name: `${tag} active` });
  const paused = await ws.createWorkspace(OWNER, { name: `${tag} paused` });
  const archived = await ws.createWorkspace(OWNER, { name: `${tag} archived` });
  t.is((await ws.call(`/api/v1/workspaces/${paused.id}`, { method: 'PUT', token: OWNER, json: { status: 'paused' } })).status, 200);
  t.is((await ws.call(`/api/v1/workspaces/${archived.id}`, { method: 'DELETE', token: OWNER })).status, 200);
  const names = async (query: string) => (await ws.call(`/api/v1/workspaces?q=${tag}${query}`, { token: OWNER })).body.items.map((w: { name: string }) => w.name).sort();
  t.deepEqual(await names(''), [active.name, paused.name]);
  t.deepEqual(await names('&status=paused'), [paused.name]);
  t.deepEqual(await names('&status=active'), [active.name]);
  t.deepEqual(await names('&include_archived=true'), [active.name, archived.name, paused.name]);
});

test('q matches % and _ literally', async (t) => {
  const tag = unique();
  await ws.createWorkspace(OWNER, { name: `${tag}0% done` });
  await ws.createWorkspace(OWNER, { name: `${tag}00 done` });
  const res = await ws.call(`/api/v1/workspaces?q=${encodeURIComponent(`${tag}0% d`)}`, { token: OWNER });
  t.deepEqual(res.body.items.map((w: { name: string }) => w.name), [`${tag}0% done`]);
  const under = await ws.call(`/api/v1/workspaces?q=${encodeURIComponent(`${tag}0_`)}`, { token: OWNER });
  t.is(under.body.total, 0);
});

test('an update changes the given fields and increments the version; a no-op writes nothing', async (t) => {
  const created = await ws.createWorkspace(OWNER, { name: 'Before', category: 'ops' });
  const res = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'PUT', token: 'member-token', json: { name: 'After', status: 'paused', description: 'now' } });
  t.is(res.status, 200, res.text);
  t.like(res.body, { name: 'After', status: 'paused', description: 'now', category: 'ops', version: 2 });
  t.true(res.body.updated_at >= created.updated_at);
  const again = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'PUT', token: OWNER, json: { name: 'After' } });
  t.is(again.body.version, 2, 'nothing changed, nothing written');
  const third = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'PUT', token: OWNER, json: { category: '' } });
  t.like(third.body, { category: '', version: 3 });
});

test('granting provider access needs an owner or admin', async (t) => {
  const created = await ws.createWorkspace(OWNER);
  const denied = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'PUT', token: 'member-token', json: { provider_access: 'granted', name: 'Renamed' } });
  t.is(denied.status, 403);
  t.is(denied.body.code, 'FORBIDDEN');
  const unchanged = await ws.call(`/api/v1/workspaces/${created.id}`, { token: OWNER });
  t.like(unchanged.body, { provider_access: 'none', name: created.name, version: 1 });
  const granted = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'PUT', token: 'admin-token', json: { provider_access: 'granted' } });
  t.like(granted.body, { provider_access: 'granted', version: 2 });
});

test('422 names the field: missing, over-long, wrong type, unknown, bad enum', async (t) => {
  const tag = unique();
  const post = (json: unknown) => ws.call('/api/v1/workspaces', { method: 'POST', token: OWNER, json });
  const cases: [unknown, string[]][] = [
    [{ description: 'no name' }, ['name']],
    [{ name: 'x'.repeat(121) }, ['name']],
    [{ name: '   ' }, ['name']],
    [{ name: 'two\nlines' }, ['name']],
    [{ name: 42 }, ['name']],
    [{ name: `${tag} ok`, description: 'd'.repeat(2001) }, ['description']],
    [{ name: `${tag} ok`, category: ['x'] }, ['category']],
    [{ name: `${tag} ok`, category: 'c'.repeat(65) }, ['category']],
    [{ name: `${tag} ok`, color: 'red' }, ['color']],
    [{ name: `${tag} ok`, status: 'paused' }, ['status']],
  ];
  for (const [body, fields] of cases) {
    const res = await post(body);
    t.is(res.status, 422, JSON.stringify(body));
    t.is(res.body.code, 'VALIDATION_FAILED');
    t.deepEqual(fieldsOf(res.body), fields, JSON.stringify(body));
  }
  const list = await ws.call(`/api/v1/workspaces?q=${tag}&include_archived=true`, { token: OWNER });
  t.is(list.body.total, 0, 'no rejected request created a workspace');
});

test('a rejected update changes nothing', async (t) => {
  const created = await ws.createWorkspace(OWNER, { name: 'Steady' });
  const put = (json: unknown) => ws.call(`/api/v1/workspaces/${created.id}`, { method: 'PUT', token: OWNER, json });
  const cases: [unknown, string[]][] = [
    [{ name: 'Changed', status: 'sleeping' }, ['status']],
    [{ name: 'Changed', provider_access: 'all' }, ['provider_access']],
    [{ name: '' }, ['name']],
    [{ name: 'Changed', version: 7 }, ['version']],
    [{ name: 'Changed', archived_at: null }, ['archived_at']],
  ];
  for (const [body, fields] of cases) {
    const res = await put(body);
    t.is(res.status, 422, JSON.stringify(body));
    t.deepEqual(fieldsOf(res.body), fields);
  }
  const after = await ws.call(`/api/v1/workspaces/${created.id}`, { token: OWNER });
  t.like(after.body, { name: 'Steady', status: 'active', version: 1, updated_at: created.updated_at });
});

test('bad list parameters are refused with the field named', async (t) => {
  for (const [query, field] of [['status=archived', 'status'], ['limit=0', 'limit'], ['limit=201', 'limit'], ['offset=-1', 'offset'], ['include_archived=maybe', 'include_archived'], ['sort=name', 'sort']]) {
    const res = await ws.call(`/api/v1/workspaces?${query}`, { token: OWNER });
    t.is(res.status, 422, query);
    t.deepEqual(fieldsOf(res.body), [field], query);
  }
});

test('an unknown or malformed id is 404 on every route', async (t) => {
  for (const id of ['0190c2a1-0000-7000-8000-000000000000', 'not-a-uuid']) {
    for (const [method, suffix] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['GET', '/activity'], ['GET', '/capabilities'], ['GET', '/governance'], ['GET', '/operating-model']]) {
      const res = await ws.call(`/api/v1/workspaces/${id}${suffix}`, { method, token: OWNER, json: method === 'PUT' ? {} : undefined });
      t.is(res.status, 404, `${method} ${id}${suffix}`);
      t.is(res.body.code, 'NOT_FOUND');
    }
  }
});

test('an archived workspace is read-only until deleted for good', async (t) => {
  const created = await ws.createWorkspace(OWNER, { name: 'Old' });
  const archived = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'DELETE', token: OWNER });
  t.is(archived.status, 200);
  t.truthy(archived.body.archived_at);
  t.is(archived.body.version, 2, 'archiving is a write');
  const put = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'PUT', token: OWNER, json: { name: 'New' } });
  t.is(put.status, 409);
  t.is(put.body.code, 'WORKSPACES_ERR_ARCHIVED');
  const gov = await ws.call(`/api/v1/workspaces/${created.id}/governance`, { method: 'PUT', token: OWNER, json: { approval_mode: 'risk_based' } });
  t.is(gov.status, 409);
  const after = await ws.call(`/api/v1/workspaces/${created.id}`, { token: OWNER });
  t.like(after.body, { name: 'Old', version: 2, archived_at: archived.body.archived_at });
});

test('members cannot archive or delete', async (t) => {
  const created = await ws.createWorkspace(OWNER);
  const res = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'DELETE', token: 'member-token' });
  t.is(res.status, 403);
  t.like((await ws.call(`/api/v1/workspaces/${created.id}`, { token: OWNER })).body, { archived_at: null, version: 1 });
  t.is((await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'DELETE', token: 'admin-token' })).status, 200);
});

test('every route needs a bearer token', async (t) => {
  t.is((await ws.call('/api/v1/workspaces')).status, 401);
  t.is((await ws.call('/api/v1/workspaces', { method: 'POST', json: { name: 'x' } })).status, 401);
});

test('the routes are described in a valid OpenAPI document', async (t) => {
  const res = await ws.call('/api/openapi.json');
  t.is(res.status, 200);
  await t.notThrowsAsync(validateOpenApi(res.body));
  const paths = res.body.paths;
  t.deepEqual(Object.keys(paths['/api/v1/workspaces']).sort(), ['get', 'post']);
  t.deepEqual(Object.keys(paths['/api/v1/workspaces/{workspace_id}']).sort(), ['delete', 'get', 'put']);
  for (const sub of ['operating-model', 'governance']) t.deepEqual(Object.keys(paths[`/api/v1/workspaces/{workspace_id}/${sub}`]).sort(), ['get', 'put']);
  for (const sub of ['activity', 'capabilities']) t.deepEqual(Object.keys(paths[`/api/v1/workspaces/{workspace_id}/${sub}`]), ['get']);
  t.false(JSON.stringify(paths).includes('recordActivity'), 'internal actions are not served');
  t.truthy(paths['/api/v1/workspaces'].post.responses['201']);
});
