import test from 'ava';
import { useTasksKernel } from './helpers/tasks-kernel.ts';
import { eventually } from './helpers/eventually.ts';

const fixture = useTasksKernel(test, 'tasks_workspaces');
const owner = 'owner-token';

test("the workspace dashboard shows the workspace's task counts per board column", async (t) => {
  const { tk } = fixture;
  const ws = await tk.createWorkspace(owner, 'Dashboard');
  const a = await tk.createTask(owner, { workspace_id: ws });
  await tk.createTask(owner, { workspace_id: ws });
  await tk.createTask(owner);
  await tk.call(`/api/v1/tasks/${a.id}/move`, { method: 'POST', token: owner, json: { status: 'cancelled' } });
  const res = await tk.call(`/api/v1/workspaces/${ws}`, { token: owner });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.dashboard.tasks, { total: 2, open: 1, columns: { todo: 1, scheduled: 0, in_progress: 0, needs_attention: 0, done: 1 } });
});

test('an archived workspace takes no new tasks', async (t) => {
  const { tk } = fixture;
  const ws = await tk.createWorkspace(owner, 'Archived');
  t.is((await tk.call(`/api/v1/workspaces/${ws}`, { method: 'DELETE', token: owner })).status, 200);
  const res = await tk.call('/api/v1/tasks', { method: 'POST', token: owner, json: { title: 'late', workspace_id: ws } });
  t.is(res.status, 409, res.text);
  t.like(res.body, { code: 'WORKSPACES_ERR_ARCHIVED', workspace_id: ws, workspace_state: 'archived' });
});

test('deleting a workspace deletes its tasks; a subtask elsewhere loses its parent, with history', async (t) => {
  const { tk } = fixture;
  const doomed = await tk.createWorkspace(owner, 'Doomed');
  const kept = await tk.createWorkspace(owner, 'Kept');
  const parent = await tk.createTask(owner, { title: 'parent', workspace_id: doomed });
  await tk.createTask(owner, { title: 'child in doomed', workspace_id: doomed, parent_id: parent.id });
  const elsewhere = await tk.createTask(owner, { title: 'child elsewhere', workspace_id: kept, parent_id: parent.id });
  const file = new FormData();
  file.append('file', new Blob(['bytes']), 'a.txt');
  t.is((await tk.call(`/api/v1/tasks/${parent.id}/attachments`, { method: 'POST', token: owner, body: file })).status, 201);

  t.is((await tk.call(`/api/v1/workspaces/${doomed}`, { method: 'DELETE', token: owner })).status, 200);
  t.is((await tk.call(`/api/v1/workspaces/${doomed}`, { method: 'DELETE', token: owner })).status, 204);
  await eventually(async () => (await tk.call(`/api/v1/tasks/${parent.id}`, { token: owner })).status === 404);
  t.is((await tk.call(`/api/v1/tasks?workspace=${doomed}`, { token: owner })).body.total, 0, 'the counters dropped them too');
  const child = (await tk.call(`/api/v1/tasks/${elsewhere.id}`, { token: owner })).body;
  t.like(child, { parent_id: null, version: 2 });
  const history = (await tk.call(`/api/v1/tasks/${elsewhere.id}/history`, { token: owner })).body.items;
  t.like(history.at(-1), { action: 'update', actor: { type: 'system', id: 'workspace.deleted' } });
  t.deepEqual(history.at(-1).changes, [{ field: 'parent_id', from: parent.id, to: null }]);
  const keys: string[] = [];
  for await (const o of tk.kernel.stores!.objects.list(`tasks/e-1/${parent.id}/`)) keys.push(o.key);
  t.deepEqual(keys, [], 'the attachment bytes went too');
});
