import test from 'ava';
import { useTasksKernel } from './helpers/tasks-kernel.ts';

const fixture = useTasksKernel(test, 'tasks_moves');
const owner = 'owner-token';

const move = (id: string, status: string, extra: Record<string, unknown> = {}) =>
  fixture.tk.call(`/api/v1/tasks/${id}/move`, { method: 'POST', token: owner, json: { status, ...extra } });

test('of two racing moves decided on the same version exactly one wins, the other is a 409 naming where the task is', async (t) => {
  const { tk } = fixture;
  const tasks = await Promise.all(Array.from({ length: 15 }, (_, i) => tk.createTask(owner, { title: `race ${i}` })));
  for (const task of tasks) {
    const [a, b] = await Promise.all([move(task.id, 'in_progress', { version: 1 }), move(task.id, 'on_hold', { version: 1 })]);
    const statuses = [a.status, b.status].sort();
    t.deepEqual(statuses, [200, 409], `${a.text} | ${b.text}`);
    const loser = a.status === 409 ? a : b;
    const winner = a.status === 200 ? a : b;
    t.true(['TASKS_ERR_VERSION_CONFLICT', 'TASKS_ERR_ILLEGAL_TRANSITION'].includes(loser.body.code), loser.text);
    t.is(loser.body.current_status, winner.body.status);
    t.true(Array.isArray(loser.body.allowed_targets));
    const history = await tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner });
    t.is(history.body.total, 2, 'exactly one move was recorded');
    t.is((await tk.call(`/api/v1/tasks/${task.id}`, { token: owner })).body.version, 2);
  }
});

test('of two racing moves to the same status, without versions, exactly one wins', async (t) => {
  const { tk } = fixture;
  const tasks = await Promise.all(Array.from({ length: 15 }, (_, i) => tk.createTask(owner, { title: `same ${i}` })));
  for (const task of tasks) {
    const [a, b] = await Promise.all([move(task.id, 'in_progress'), move(task.id, 'in_progress')]);
    t.deepEqual([a.status, b.status].sort(), [200, 409], `${a.text} | ${b.text}`);
    const loser = a.status === 409 ? a : b;
    t.is(loser.body.current_status, 'in_progress');
    t.is((await tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner })).body.total, 2);
  }
});

test('a move with a stale version is a conflict and changes nothing', async (t) => {
  const task = await fixture.tk.createTask(owner);
  t.is((await move(task.id, 'pending', { version: 1 })).status, 200);
  const stale = await move(task.id, 'in_progress', { version: 1 });
  t.is(stale.status, 409);
  t.like(stale.body, { code: 'TASKS_ERR_VERSION_CONFLICT', current_version: 2, current_status: 'pending', expected_version: 1 });
  t.like((await fixture.tk.call(`/api/v1/tasks/${task.id}`, { token: owner })).body, { status: 'pending', version: 2 });
});

test('PUT with a status goes through the machine, in the same guarded write as the other fields', async (t) => {
  const { tk } = fixture;
  const task = await tk.createTask(owner);
  const ok = await tk.call(`/api/v1/tasks/${task.id}`, { method: 'PUT', token: owner, json: { status: 'in_progress', title: 'started' } });
  t.is(ok.status, 200, ok.text);
  t.like(ok.body, { status: 'in_progress', title: 'started', version: 2 });
  const illegal = await tk.call(`/api/v1/tasks/${task.id}`, { method: 'PUT', token: owner, json: { status: 'scheduled', title: 'not this' } });
  t.is(illegal.status, 409);
  t.like(illegal.body, { code: 'TASKS_ERR_ILLEGAL_TRANSITION', current_status: 'in_progress', requested_status: 'scheduled' });
  t.like((await tk.call(`/api/v1/tasks/${task.id}`, { token: owner })).body, { title: 'started', version: 2 }, 'the refused PUT changed nothing');
  const same = await tk.call(`/api/v1/tasks/${task.id}`, { method: 'PUT', token: owner, json: { status: 'in_progress' } });
  t.like(same.body, { version: 2 }, 'sending the current status is no change');
  const stale = await tk.call(`/api/v1/tasks/${task.id}`, { method: 'PUT', token: owner, json: { title: 'late', version: 1 } });
  t.is(stale.status, 409);
  t.is(stale.body.code, 'TASKS_ERR_VERSION_CONFLICT');
});

test('moves run the SLA clocks: first response and resolution, reopened resolution', async (t) => {
  const { tk } = fixture;
  const task = await tk.createTask(owner);
  const started = await move(task.id, 'in_progress');
  const done = await move(task.id, 'completed');
  t.is(done.status, 200);
  const history = (await tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner })).body.items;
  t.truthy(history[1].changes.find((c: { field: string }) => c.field === 'responded_at')?.to);
  t.truthy(history[2].changes.find((c: { field: string }) => c.field === 'resolved_at')?.to);
  const reopened = await move(task.id, 'pending');
  t.is(reopened.status, 200);
  const last = (await tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner })).body.items[3];
  t.deepEqual(last.changes.find((c: { field: string }) => c.field === 'resolved_at')?.to, null);
  t.is(started.body.status, 'in_progress');
});
