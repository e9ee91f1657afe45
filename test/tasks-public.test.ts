import test from 'ava';
import { Sequelize } from 'sequelize';
import { useTasksKernel } from './helpers/tasks-kernel.ts';

const fixture = useTasksKernel(test, 'tasks_public');
const owner = 'owner-token';
const pub = (path: string, method = 'GET', json?: unknown) => fixture.tk.call(`/api/v1/public/task/${path}`, { method, json });

async function mint(taskId: string, token = owner) {
  return fixture.tk.call(`/api/v1/tasks/${taskId}/public-codes`, { method: 'POST', token, json: { label: 'client review' } });
}

test('a minted code shows the task without a token and without its internal fields', async (t) => {
  const ws = await fixture.tk.createWorkspace(owner);
  const task = await fixture.tk.createTask(owner, { title: 'Logo', description: 'the **new** logo', workspace_id: ws, assignee: { type: 'agent', id: 'designer' } });
  const minted = await mint(task.id);
  t.is(minted.status, 201, minted.text);
  t.is(minted.body.state, 'active');
  t.true(minted.body.code.length >= 40);
  const days = (Date.parse(minted.body.expires_at) - Date.parse(minted.body.created_at)) / 86_400_000;
  t.is(days, 7);
  const view = await pub(minted.body.code);
  t.is(view.status, 200, view.text);
  t.like(view.body, { title: 'Logo', description: 'the **new** logo', status: 'created', priority: 3 });
  for (const internal of ['id', 'entity_id', 'workspace_id', 'assignee', 'execution_record', 'pending_request', 'delivery_review', 'created_by', 'version', 'requester']) {
    t.false(internal in view.body, `${internal} is not shown publicly`);
  }
  const listed = await fixture.tk.call(`/api/v1/tasks/${task.id}/public-codes`, { token: owner });
  t.is(listed.body.items.length, 1);
  t.false('code' in listed.body.items[0], 'the code is shown only once');
  t.truthy(listed.body.items[0].last_used_at);
});

test('public actions move the task through the state machine and record the reviewer', async (t) => {
  const task = await fixture.tk.createTask(owner);
  const { code } = (await mint(task.id)).body;
  const early = await pub(`${code}/complete`, 'POST', {});
  t.is(early.status, 409, 'created cannot be completed');
  t.like(early.body, { code: 'TASKS_ERR_ILLEGAL_TRANSITION', current_status: 'created' });
  const unknown = await pub(`${code}/update-status`, 'POST', { status: 'approved' });
  t.is(unknown.status, 422);
  t.is(unknown.body.errors[0].field, 'status');
  const started = await pub(`${code}/update-status`, 'POST', { status: 'in_progress' });
  t.is(started.status, 200, started.text);
  t.is(started.body.status, 'in_progress');
  const done = await pub(`${code}/complete`, 'POST', {});
  t.is(done.status, 200, done.text);
  t.is(done.body.status, 'completed');
  const rated = await pub(`${code}/evaluate`, 'POST', { rating: 5, comment: 'great work' });
  t.is(rated.status, 200, rated.text);
  t.like(rated.body.evaluation, { rating: 5, comment: 'great work' });
  for (const rating of [0, 6, 2.5]) t.is((await pub(`${code}/evaluate`, 'POST', { rating })).status, 422, `rating ${rating}`);
  const history = (await fixture.tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner })).body.items;
  t.deepEqual(history.slice(-3).map((h: any) => h.action), ['public_review', 'public_review', 'evaluate']);
  t.is(history.at(-1).actor.type, 'public');
});

test('a revoked or expired code is a 404 and can change nothing', async (t) => {
  const task = await fixture.tk.createTask(owner);
  const revokedCode = (await mint(task.id)).body;
  const expiredCode = (await mint(task.id)).body;
  const revoke = await fixture.tk.call(`/api/v1/tasks/${task.id}/public-codes/${revokedCode.id}`, { method: 'DELETE', token: owner });
  t.is(revoke.status, 204);
  const sql = new Sequelize(fixture.tk.db.url, { logging: false });
  try {
    await sql.query("UPDATE task_public_codes SET expires_at = now() - interval '1 second' WHERE id = $1", { bind: [expiredCode.id] });
  } finally {
    await sql.close();
  }
  for (const code of [revokedCode.code, expiredCode.code, 'not-a-code']) {
    t.is((await pub(code)).status, 404);
    t.is((await pub(`${code}/update-status`, 'POST', { status: 'in_progress' })).status, 404);
    t.is((await pub(`${code}/evaluate`, 'POST', { rating: 1 })).status, 404);
  }
  t.like((await fixture.tk.call(`/api/v1/tasks/${task.id}`, { token: owner })).body, { status: 'created', evaluation: null, version: 1 });
  const states = (await fixture.tk.call(`/api/v1/tasks/${task.id}/public-codes`, { token: owner })).body.items.map((c: any) => c.state);
  t.deepEqual(states, ['revoked', 'expired']);
});

test("another entity cannot mint, list or revoke codes on a task", async (t) => {
  const task = await fixture.tk.createTask(owner);
  const code = (await mint(task.id)).body;
  t.is((await mint(task.id, 'other-token')).status, 404);
  t.is((await fixture.tk.call(`/api/v1/tasks/${task.id}/public-codes`, { token: 'other-token' })).status, 404);
  t.is((await fixture.tk.call(`/api/v1/tasks/${task.id}/public-codes/${code.id}`, { method: 'DELETE', token: 'other-token' })).status, 404);
  t.is((await pub(code.code)).status, 200, 'the code still works');
});
