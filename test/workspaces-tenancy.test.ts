import test from 'ava';
import { QueryTypes } from 'sequelize';
import { startWorkspacesKernel, type WorkspacesKernel } from './helpers/workspaces-kernel.ts';
import { eventually } from './helpers/eventually.ts';

let ws: WorkspacesKernel;
test.before(async () => {
  ws = await startWorkspacesKernel('workspaces_tenancy', ['deletion-listener', 'activity-writer']);
});
test.after.always(async () => {
  await ws?.close();
});

const OWNER = 'owner-token';
const OTHER = 'other-token';

/** Every route and method of one workspace, with a valid body for the writes. */
const ROUTES: [string, string, unknown?][] = [
  ['GET', ''],
  ['PUT', '', { name: 'Taken over' }],
  ['DELETE', ''],
  ['GET', '/operating-model'],
  ['PUT', '/operating-model', { timezone: 'Europe/Paris' }],
  ['GET', '/governance'],
  ['PUT', '/governance', { approval_mode: 'confirm_changes' }],
  ['GET', '/activity'],
  ['GET', '/capabilities'],
];

test("another entity's workspace is 404 for every route and method, and stays untouched", async (t) => {
  const mine = await ws.createWorkspace(OWNER, { name: 'Private' });
  const before = await ws.call(`/api/v1/workspaces/${mine.id}`, { token: OWNER });
  for (const [method, suffix, json] of ROUTES) {
    const res = await ws.call(`/api/v1/workspaces/${mine.id}${suffix}`, { method, token: OTHER, json });
    t.is(res.status, 404, `${method} ${suffix}`);
    t.is(res.body.code, 'NOT_FOUND');
    t.false(res.text.includes('Private'));
  }
  // twice DELETE: neither archives nor deletes
  t.is((await ws.call(`/api/v1/workspaces/${mine.id}`, { method: 'DELETE', token: OTHER })).status, 404);
  const after = await ws.call(`/api/v1/workspaces/${mine.id}`, { token: OWNER });
  t.deepEqual(after.body, before.body);
  const activity = await ws.call(`/api/v1/workspaces/${mine.id}/activity`, { token: OWNER });
  t.deepEqual(activity.body.items.map((a: { kind: string }) => a.kind), ['workspace.created']);
});

test("lists show only the caller's entity", async (t) => {
  const mine = await ws.createWorkspace(OWNER, { name: 'Listed for e-1' });
  const theirs = await ws.createWorkspace(OTHER, { name: 'Listed for e-2' });
  t.is(theirs.entity_id, 'e-2');
  const other = await ws.call('/api/v1/workspaces?include_archived=true&limit=200', { token: OTHER });
  t.deepEqual(other.body.items.map((w: { id: string }) => w.id), [theirs.id]);
  const own = await ws.call('/api/v1/workspaces?include_archived=true&limit=200', { token: OWNER });
  t.true(own.body.items.some((w: { id: string }) => w.id === mine.id));
  t.false(own.body.items.some((w: { id: string }) => w.id === theirs.id));
});

test("a package cannot write into another entity's activity log", async (t) => {
  const mine = await ws.createWorkspace(OWNER);
  const res = await ws.call('/api/v1/activity-writer/notes', { method: 'POST', token: OTHER, json: { workspace_id: mine.id, summary: 'sneaky' } });
  t.is(res.status, 404);
  const viaSystem = await t.throwsAsync(ws.kernel.broker.call('activity-writer.systemNote', { entity_id: 'e-2', workspace_id: mine.id, summary: 'sneaky' }));
  t.is((viaSystem as { code?: number }).code, 404);
  const activity = await ws.call(`/api/v1/workspaces/${mine.id}/activity`, { token: OWNER });
  t.is(activity.body.total, 1);
});

test('delete archives first, then deletes for good: rows gone and workspace.deleted emitted', async (t) => {
  const created = await ws.createWorkspace(OWNER, { name: 'Doomed' });
  await ws.call('/api/v1/activity-writer/notes', { method: 'POST', token: OWNER, json: { workspace_id: created.id, summary: 'a note' } });
  const archived = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'DELETE', token: OWNER });
  t.is(archived.status, 200);
  t.like(archived.body, { id: created.id, name: 'Doomed' });
  t.truthy(archived.body.archived_at);
  t.is((await ws.call(`/api/v1/workspaces/${created.id}`, { token: OWNER })).status, 200, 'an archived workspace can still be read');
  const kinds = (await ws.call(`/api/v1/workspaces/${created.id}/activity`, { token: OWNER })).body.items.map((a: { kind: string }) => a.kind);
  t.deepEqual(kinds, ['workspace.archived', 'note.added', 'workspace.created']);
  t.deepEqual(await ws.kernel.broker.call('deletion-listener.received'), [], 'archiving deletes nothing');

  const deleted = await ws.call(`/api/v1/workspaces/${created.id}`, { method: 'DELETE', token: 'admin-token' });
  t.is(deleted.status, 204);
  t.is(deleted.text, '');
  for (const [method, suffix, json] of ROUTES) {
    t.is((await ws.call(`/api/v1/workspaces/${created.id}${suffix}`, { method, token: OWNER, json })).status, 404, `${method} ${suffix}`);
  }
  const received = await eventually(async () => {
    const got = (await ws.kernel.broker.call('deletion-listener.received')) as unknown[];
    return got.length ? got : undefined;
  });
  t.deepEqual(received, [{ entity_id: 'e-1', workspace_id: created.id }]);
  const db = ws.kernel.stores!.db;
  const [rows] = await db.query('SELECT count(*)::int AS n FROM workspace_activity WHERE workspace_id = :id', { replacements: { id: created.id }, type: QueryTypes.SELECT });
  t.is((rows as { n: number }).n, 0, 'the activity log went with the workspace');
  const writeAfter = await ws.call('/api/v1/activity-writer/notes', { method: 'POST', token: OWNER, json: { workspace_id: created.id, summary: 'too late' } });
  t.is(writeAfter.status, 404);
});
