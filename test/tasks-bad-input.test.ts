import test from 'ava';
import { useTasksKernel } from './helpers/tasks-kernel.ts';

const fixture = useTasksKernel(test, 'tasks_bad_input');
const owner = 'owner-token';

function fieldsOf(res: { body: any }): string[] {
  return (res.body?.errors ?? []).map((e: { field: string }) => e.field);
}

async function snapshot(id: string): Promise<unknown> {
  const [task, history] = await Promise.all([
    fixture.tk.call(`/api/v1/tasks/${id}`, { token: owner }),
    fixture.tk.call(`/api/v1/tasks/${id}/history`, { token: owner }),
  ]);
  return { task: task.body, history: history.body };
}

test('create: each bad field is a 422 naming it, and no task is made', async (t) => {
  const { tk } = fixture;
  const ws = await tk.createWorkspace(owner, 'Bad input');
  const theirs = await tk.createWorkspace('other-token', 'Not yours');
  const theirTask = await tk.createTask('other-token');
  const cases: [Record<string, unknown>, string][] = [
    [{ title: 'x', priority: 0 }, 'priority'],
    [{ title: 'x', priority: 6 }, 'priority'],
    [{ title: 'x', priority: 2.5 }, 'priority'],
    [{ title: 'x', status: 'done' }, 'status'],
    [{ title: 'x', status: 'completed' }, 'status'],
    [{ title: 'x', deadline: 'next friday' }, 'deadline'],
    [{ title: 'x', deadline: '2030-02-30' }, 'deadline'],
    [{ title: '' }, 'title'],
    [{ priority: 1 }, 'title'],
    [{ title: 'x', assignee: { type: 'robot', id: 'r' } }, 'assignee.type'],
    [{ title: 'x', assignee: { type: 'agent' } }, 'assignee.id'],
    [{ title: 'x', workspace_id: 'not-a-uuid' }, 'workspace_id'],
    [{ title: 'x', workspace_id: theirs }, 'workspace_id'],
    [{ title: 'x', workspace_id: '01900000-0000-7000-8000-000000000000' }, 'workspace_id'],
    [{ title: 'x', parent_id: theirTask.id }, 'parent_id'],
    [{ title: 'x', sla_policy_id: '01900000-0000-7000-8000-000000000000' }, 'sla_policy_id'],
    [{ title: 'x', colour: 'red' }, 'colour'],
  ];
  for (const [json, field] of cases) {
    const res = await tk.call('/api/v1/tasks', { method: 'POST', token: owner, json: { workspace_id: ws, ...json } });
    t.is(res.status, 422, `${JSON.stringify(json)}: ${res.text}`);
    t.true(fieldsOf(res).includes(field), `${JSON.stringify(json)} names ${field}: ${JSON.stringify(fieldsOf(res))}`);
  }
  t.is((await tk.call(`/api/v1/tasks?workspace=${ws}`, { token: owner })).body.total, 0, 'nothing was created');
});

test('update and move: bad input is refused precisely and the task is unchanged', async (t) => {
  const { tk } = fixture;
  const task = await tk.createTask(owner, { title: 'steady' });
  await tk.call(`/api/v1/tasks/${task.id}/move`, { method: 'POST', token: owner, json: { status: 'in_progress' } });
  const before = await snapshot(task.id);
  const puts: [Record<string, unknown>, number, string][] = [
    [{ priority: 0 }, 422, 'priority'],
    [{ priority: 6 }, 422, 'priority'],
    [{ status: 'done' }, 422, 'status'],
    [{ deadline: 'soon' }, 422, 'deadline'],
    [{ deadline: '2030-04-31T10:00:00Z' }, 422, 'deadline'],
    [{ parent_id: task.id }, 422, 'parent_id'],
    [{ version: 0 }, 422, 'version'],
    [{ title: 'changed', status: 'created' }, 409, ''],
    [{ title: 'changed', version: 1 }, 409, ''],
  ];
  for (const [json, status, field] of puts) {
    const res = await tk.call(`/api/v1/tasks/${task.id}`, { method: 'PUT', token: owner, json });
    t.is(res.status, status, `${JSON.stringify(json)}: ${res.text}`);
    if (field) t.true(fieldsOf(res).includes(field), `${JSON.stringify(json)}: ${JSON.stringify(fieldsOf(res))}`);
  }
  const moves: [Record<string, unknown>, number][] = [
    [{ status: 'done' }, 422],
    [{}, 422],
    [{ status: 'scheduled' }, 409],
    [{ status: 'in_progress' }, 409],
  ];
  for (const [json, status] of moves) {
    const res = await tk.call(`/api/v1/tasks/${task.id}/move`, { method: 'POST', token: owner, json });
    t.is(res.status, status, `${JSON.stringify(json)}: ${res.text}`);
    if (status === 409) t.like(res.body, { code: 'TASKS_ERR_ILLEGAL_TRANSITION', current_status: 'in_progress' });
  }
  t.deepEqual(await snapshot(task.id), before, 'nothing changed');
});

test('a subtask cannot become its own ancestor', async (t) => {
  const { tk } = fixture;
  const parent = await tk.createTask(owner, { title: 'parent' });
  const child = await tk.createTask(owner, { title: 'child', parent_id: parent.id });
  t.deepEqual((await tk.call(`/api/v1/tasks/${parent.id}`, { token: owner })).body.subtasks.map((s: any) => s.id), [child.id]);
  const cycle = await tk.call(`/api/v1/tasks/${parent.id}`, { method: 'PUT', token: owner, json: { parent_id: child.id } });
  t.is(cycle.status, 422);
  t.deepEqual(fieldsOf(cycle), ['parent_id']);
  const blocked = await tk.call(`/api/v1/tasks/${parent.id}`, { method: 'DELETE', token: owner });
  t.is(blocked.status, 409, 'a task with subtasks is not deleted');
  t.is(blocked.body.code, 'TASKS_ERR_IN_USE');
  t.is((await tk.call(`/api/v1/tasks?parent_id=${parent.id}`, { token: owner })).body.total, 1);
});

test("another entity's task is a 404 on every route and method, and stays as it was", async (t) => {
  const { tk } = fixture;
  const task = await tk.createTask(owner, { title: 'private' });
  const upload = new FormData();
  upload.append('file', new Blob(['x']), 'x.txt');
  const uploaded = await tk.call(`/api/v1/tasks/${task.id}/attachments`, { method: 'POST', token: owner, body: upload });
  const attachment = uploaded.body[0];
  const code = (await tk.call(`/api/v1/tasks/${task.id}/public-codes`, { method: 'POST', token: owner, json: {} })).body;
  const before = await snapshot(task.id);
  const id = task.id;
  const routes: [string, string, unknown?][] = [
    ['GET', `/${id}`],
    ['PUT', `/${id}`, { title: 'stolen' }],
    ['DELETE', `/${id}`],
    ['POST', `/${id}/move`, { status: 'in_progress' }],
    ['GET', `/${id}/history`],
    ['GET', `/${id}/logs`],
    ['POST', `/${id}/logs`, { body: 'hello' }],
    ['GET', `/${id}/attachments`],
    ['GET', `/${id}/attachments/${attachment.id}`],
    ['POST', `/${id}/retry`, {}],
    ['POST', `/${id}/hitl-response`, { response: 'x' }],
    ['POST', `/${id}/approval`, { decision: 'approve' }],
    ['POST', `/${id}/resume-delivery-review`, { expected_plan_id: 'p', expected_state_version: 1 }],
    ['GET', `/${id}/public-codes`],
    ['POST', `/${id}/public-codes`, {}],
    ['DELETE', `/${id}/public-codes/${code.id}`],
  ];
  for (const [method, path, json] of routes) {
    const res = await tk.call(`/api/v1/tasks${path}`, { method, token: 'other-token', json });
    t.is(res.status, 404, `${method} ${path}: ${res.text}`);
    t.is(res.body.code, 'NOT_FOUND', `${method} ${path}`);
  }
  const upload2 = new FormData();
  upload2.append('file', new Blob(['y']), 'y.txt');
  t.is((await tk.call(`/api/v1/tasks/${id}/attachments`, { method: 'POST', token: 'other-token', body: upload2 })).status, 404);
  t.is((await tk.call(`/api/v1/tasks/not-a-uuid`, { token: owner })).status, 404, 'an id that is no UUID is simply not found');
  t.deepEqual(await snapshot(task.id), before, 'the task is as it was');
  t.is((await tk.call(`/api/v1/public/task/${code.code}`)).status, 200, 'its code still works');
});

test('a reference that vanishes between the check and the write is a 422 naming it, not a 500', async (t) => {
  const { insertTask } = await import('../plugins/tasks/db/task-store.ts');
  const db = fixture.tk.kernel.stores!.db;
  const gone = '01900000-0000-7000-8000-00000000dead';
  const draft = { id: '01900000-0000-7000-8000-00000000beef', title: 'x', status: 'created' as const, priority: 3, created_by: 'u-owner', category_id: gone };
  const err = await t.throwsAsync(insertTask(db, 'e-1', draft, { actor: { type: 'user', id: 'u-owner' } }, new Date()));
  t.is((err as { code?: number }).code, 422);
  t.is((err as { data?: { field: string }[] }).data?.[0].field, 'category_id');
  t.is((await fixture.tk.call(`/api/v1/tasks/${draft.id}`, { token: owner })).status, 404);
});
