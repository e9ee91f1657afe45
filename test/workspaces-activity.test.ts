import test from 'ava';
import { startWorkspacesKernel, type WorkspacesKernel } from './helpers/workspaces-kernel.ts';
import { activityParams } from '../kernel/activity.ts';

let ws: WorkspacesKernel;
test.before(async () => {
  ws = await startWorkspacesKernel('workspaces_activity', ['activity-writer']);
});
test.after.always(async () => {
  await ws?.close();
});

const OWNER = 'owner-token';
const feed = async (id: string, query = '') => (await ws.call(`/api/v1/workspaces/${id}/activity${query}`, { token: 'member-token' })).body;

test("the package's own writes are recorded, newest first, with the acting user", async (t) => {
  const w = await ws.createWorkspace(OWNER, { name: 'Logged', category: 'ops' });
  await ws.call(`/api/v1/workspaces/${w.id}`, { method: 'PUT', token: 'member-token', json: { name: 'Logged twice', status: 'paused' } });
  await ws.call(`/api/v1/workspaces/${w.id}`, { method: 'DELETE', token: 'admin-token' });
  const page = await feed(w.id);
  t.like(page, { total: 3, limit: 50, offset: 0 });
  const [archived, updated, created] = page.items;
  t.like(created, { workspace_id: w.id, kind: 'workspace.created', actor_type: 'user', actor_id: 'u-owner', summary: 'Workspace "Logged" created', data: { name: 'Logged', category: 'ops' } });
  t.like(updated, { kind: 'workspace.updated', actor_id: 'u-member', data: { changes: { name: { from: 'Logged', to: 'Logged twice' }, status: { from: 'active', to: 'paused' } } } });
  t.like(archived, { kind: 'workspace.archived', actor_id: 'u-admin' });
  t.true(archived.created_at >= updated.created_at && updated.created_at >= created.created_at);
  t.false('entity_id' in created);
});

test('another package appends through recordActivity as the calling user', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const res = await ws.call('/api/v1/activity-writer/notes', { method: 'POST', token: 'member-token', json: { workspace_id: w.id, summary: 'Called the customer', data: { minutes: 12 } } });
  t.is(res.status, 200, res.text);
  const [note] = (await feed(w.id)).items;
  t.like(note, { kind: 'note.added', summary: 'Called the customer', actor_type: 'user', actor_id: 'u-member', data: { minutes: 12 } });
});

test('system and agent work names the entity and the actor', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  await ws.kernel.broker.call('activity-writer.systemNote', { entity_id: 'e-1', workspace_id: w.id, summary: 'Nightly check ran' });
  await ws.kernel.broker.call('activity-writer.agentNote', { entity_id: 'e-1', workspace_id: w.id, agent_id: 'agent-7' });
  const [agent, system] = (await feed(w.id)).items;
  t.like(system, { kind: 'note.scheduled', actor_type: 'system', actor_id: 'activity-writer' });
  t.like(agent, { kind: 'agent.replied', actor_type: 'agent', actor_id: 'agent-7' });
});

test('an invalid entry is refused with the field named and nothing is appended', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  const note = (json: unknown) => ws.call('/api/v1/activity-writer/notes', { method: 'POST', token: OWNER, json });
  const long = await note({ workspace_id: w.id, summary: 's'.repeat(501) });
  t.is(long.status, 422);
  t.deepEqual(long.body.errors.map((e: { field: string }) => e.field), ['summary']);
  const empty = await note({ workspace_id: w.id, summary: '' });
  t.is(empty.status, 422);
  const big = await note({ workspace_id: w.id, summary: 'big', data: { blob: 'x'.repeat(17 * 1024) } });
  t.is(big.status, 422);
  t.deepEqual(big.body.errors.map((e: { field: string }) => e.field), ['data']);
  const bad = await t.throwsAsync(ws.kernel.broker.call('workspaces.recordActivity', { entity_id: 'e-1', workspace_id: w.id, kind: 'Not A Kind', summary: 'x', actor: { type: 'robot', id: 'r' } }));
  t.is((bad as { code?: number }).code, 422);
  t.is((await feed(w.id)).total, 1);
});

test('the feed pages and filters by kind', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  for (let i = 0; i < 4; i++) {
    await ws.call('/api/v1/activity-writer/notes', { method: 'POST', token: OWNER, json: { workspace_id: w.id, summary: `note ${i}` } });
  }
  const page = await feed(w.id, '?kind=note.added&limit=3&offset=1');
  t.like(page, { total: 4, limit: 3, offset: 1 });
  t.deepEqual(page.items.map((a: { summary: string }) => a.summary), ['note 2', 'note 1', 'note 0']);
  t.deepEqual((await feed(w.id, '?kind=workspace.created')).items.map((a: { kind: string }) => a.kind), ['workspace.created']);
  const bad = await ws.call(`/api/v1/workspaces/${w.id}/activity?kind=DROP%20TABLE`, { token: OWNER });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field), ['kind']);
});

test('the log is append-only: no route changes it and the model refuses updates and deletes', async (t) => {
  const w = await ws.createWorkspace(OWNER);
  for (const method of ['PUT', 'DELETE', 'POST']) {
    const res = await ws.call(`/api/v1/workspaces/${w.id}/activity`, { method, token: OWNER, json: method === 'DELETE' ? undefined : {} });
    t.is(res.status, 404, method);
  }
  const Activity = ws.kernel.stores!.db.models.workspace_activity;
  // validate: false, else the kernel's tenancy check of the values (no entity_id among them) refuses first
  await t.throwsAsync(Activity.update({ summary: 'rewritten' }, { where: { entity_id: 'e-1', workspace_id: w.id }, validate: false }), { message: /append-only/ });
  await t.throwsAsync(Activity.destroy({ where: { entity_id: 'e-1', workspace_id: w.id } }), { message: /append-only/ });
  t.is((await feed(w.id)).items[0].summary, `Workspace "${w.name}" created`);
});

test('recordActivity takes the entity from the user and refuses a different one', (t) => {
  const ctx = { meta: { user: { id: 'u-1', entity_id: 'e-1' } }, service: null } as never;
  t.like(activityParams(ctx, { workspace_id: 'w', kind: 'k', summary: 's' }), { entity_id: 'e-1', actor: { type: 'user', id: 'u-1' } });
  t.throws(() => activityParams(ctx, { workspace_id: 'w', kind: 'k', summary: 's', entity_id: 'e-2' }), { message: /not the calling user's entity/ });
  const noUser = { meta: {}, service: { fullName: 'scheduler' } } as never;
  t.throws(() => activityParams(noUser, { workspace_id: 'w', kind: 'k', summary: 's' }), { message: /explicit entity_id/ });
  t.like(activityParams(noUser, { workspace_id: 'w', kind: 'k', summary: 's', entity_id: 'e-3' }), { entity_id: 'e-3', actor: { type: 'system', id: 'scheduler' } });
});
