import test from 'ava';
import { QueryTypes, Sequelize, Transaction } from 'sequelize';
import { useTasksKernel } from './helpers/tasks-kernel.ts';
import { columnOf } from '../plugins/tasks/domain/board-columns.ts';

const fixture = useTasksKernel(test, 'tasks_crud');
const owner = 'owner-token';

test('constants return the whole machine without hard-coding on the client', async (t) => {
  const res = await fixture.tk.call('/api/v1/tasks/constants', { token: 'member-token' });
  t.is(res.status, 200, res.text);
  t.is(res.body.statuses.length, 11);
  t.deepEqual(res.body.allowed_targets.failed, ['pending', 'cancelled']);
  t.is(res.body.board_columns.length, 5);
  t.deepEqual(res.body.priorities.map((p: { value: number }) => p.value), [1, 2, 3, 4, 5]);
});

test('create, read, update and delete a task', async (t) => {
  const { tk } = fixture;
  const ws = await tk.createWorkspace(owner, 'Ops');
  const created = await tk.call('/api/v1/tasks', {
    method: 'POST',
    token: owner,
    json: { title: 'Ship it', description: '# Plan\n- a', priority: 2, deadline: '2030-01-02T03:04:05Z', workspace_id: ws, requester: 'ann@example.com', assignee: { type: 'user', id: 'u-member' } },
  });
  t.is(created.status, 201, created.text);
  const task = created.body;
  t.like(task, { title: 'Ship it', status: 'created', priority: 2, workspace_id: ws, version: 1, deadline: '2030-01-02T03:04:05.000Z', assignee: { type: 'user', id: 'u-member' }, requester: 'ann@example.com', created_by: 'u-owner' });
  t.true(task.allowed_transitions.includes('in_progress'));

  const read = await tk.call(`/api/v1/tasks/${task.id}`, { token: 'member-token' });
  t.is(read.status, 200, read.text);
  t.deepEqual(read.body.execution_record, []);
  t.deepEqual(read.body.subtasks, []);

  const updated = await tk.call(`/api/v1/tasks/${task.id}`, { method: 'PUT', token: owner, json: { title: 'Ship it now', priority: 1, assignee: null, version: 1 } });
  t.is(updated.status, 200, updated.text);
  t.like(updated.body, { title: 'Ship it now', priority: 1, assignee: null, version: 2 });

  const history = await tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner });
  t.is(history.status, 200, history.text);
  t.is(history.body.total, 2);
  t.is(history.body.items[0].action, 'created');
  t.deepEqual(history.body.items[1].actor, { type: 'user', id: 'u-owner' });
  const fields = history.body.items[1].changes.map((c: { field: string }) => c.field).sort();
  t.deepEqual(fields, ['assignee_id', 'assignee_type', 'priority', 'title']);
  t.deepEqual(history.body.items[1].changes.find((c: { field: string }) => c.field === 'title'), { field: 'title', from: 'Ship it', to: 'Ship it now' });

  const removed = await tk.call(`/api/v1/tasks/${task.id}`, { method: 'DELETE', token: owner });
  t.is(removed.status, 204, removed.text);
  t.is((await tk.call(`/api/v1/tasks/${task.id}`, { token: owner })).status, 404);
});

test('a move goes through the state machine and is recorded in history', async (t) => {
  const { tk } = fixture;
  const task = await tk.createTask(owner);
  const moved = await tk.call(`/api/v1/tasks/${task.id}/move`, { method: 'POST', token: owner, json: { status: 'in_progress' } });
  t.is(moved.status, 200, moved.text);
  t.like(moved.body, { status: 'in_progress', version: 2, board_column: 'in_progress' });
  const illegal = await tk.call(`/api/v1/tasks/${task.id}/move`, { method: 'POST', token: owner, json: { status: 'created' } });
  t.is(illegal.status, 409, illegal.text);
  t.like(illegal.body, { code: 'TASKS_ERR_ILLEGAL_TRANSITION', current_status: 'in_progress', requested_status: 'created' });
  t.deepEqual(illegal.body.allowed_targets, ['pending', 'waiting_on_customer', 'on_hold', 'blocked', 'completed', 'cancelled', 'failed']);
  const history = await tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner });
  t.is(history.body.total, 2);
  t.like(history.body.items[1], { action: 'move' });
  t.deepEqual(history.body.items[1].changes[0], { field: 'status', from: 'created', to: 'in_progress' });
});

test('the board counters agree with the rows after every kind of write', async (t) => {
  const { tk } = fixture;
  const extra = await tk.createTask(owner, { title: 'counted' });
  await tk.call(`/api/v1/tasks/${extra.id}/move`, { method: 'POST', token: owner, json: { status: 'pending' } });
  await tk.call(`/api/v1/tasks/${extra.id}`, { method: 'PUT', token: owner, json: { status: 'in_progress' } });
  const gone = await tk.createTask(owner, { title: 'deleted' });
  await tk.call(`/api/v1/tasks/${gone.id}`, { method: 'DELETE', token: owner });
  const sql = new Sequelize(tk.db.url, { logging: false });
  try {
    // Other tests in this file write concurrently: read rows and counters from one snapshot.
    const { counted, kept } = await sql.transaction({ isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ }, async (transaction) => ({
      counted: await sql.query<{ status: string; n: number }>("SELECT status, count(*)::int AS n FROM tasks WHERE entity_id = 'e-1' GROUP BY status ORDER BY status", { type: QueryTypes.SELECT, transaction }),
      kept: await sql.query<{ status: string; n: number }>("SELECT status, sum(n)::int AS n FROM task_status_counts WHERE entity_id = 'e-1' GROUP BY status HAVING sum(n) <> 0 ORDER BY status", { type: QueryTypes.SELECT, transaction }),
    }));
    t.deepEqual(kept, counted);
    const column = await sql.query<{ status: string; board_column: string }>('SELECT DISTINCT status, board_column FROM tasks', { type: QueryTypes.SELECT });
    for (const row of column) t.is(row.board_column, columnOf(row.status as never), `${row.status} is stored in the column the module says`);
  } finally {
    await sql.close();
  }
  await tk.call(`/api/v1/tasks/${extra.id}/move`, { method: 'POST', token: owner, json: { status: 'cancelled' } });
});

