import test from 'ava';
import { useTasksKernel } from './helpers/tasks-kernel.ts';

const fixture = useTasksKernel(test, 'tasks_list_board');
const owner = 'owner-token';

interface Seeded {
  wsA: string;
  wsB: string;
  ids: Record<string, string>;
}
let seeded: Promise<Seeded> | undefined;

/** A fixed set of tasks, created once for the file (tests only read them). */
function seed(): Promise<Seeded> {
  seeded ??= (async () => {
    const { tk } = fixture;
    const wsA = await tk.createWorkspace(owner, 'A');
    const wsB = await tk.createWorkspace(owner, 'B');
    const specs: [string, Record<string, unknown>, string[]][] = [
      ['alpha', { workspace_id: wsA, priority: 1, deadline: '2030-01-01', assignee: { type: 'user', id: 'u-1' } }, ['in_progress']],
      ['beta', { workspace_id: wsA, priority: 2, deadline: '2030-02-01', description: 'needle in the haystack' }, ['in_progress', 'blocked']],
      ['gamma', { workspace_id: wsA, priority: 3, assignee: { type: 'agent', id: 'agent-7' } }, []],
      ['delta', { workspace_id: wsB, priority: 1, deadline: '2030-03-01' }, ['in_progress']],
      ['epsilon 50%_off', { workspace_id: wsB, priority: 5 }, ['in_progress', 'completed']],
      ['zeta', { priority: 4, status: 'scheduled' }, []],
    ];
    const ids: Record<string, string> = {};
    for (const [title, body, moves] of specs) {
      const task = await tk.createTask(owner, { title, ...body });
      ids[title] = task.id;
      for (const status of moves) {
        const res = await tk.call(`/api/v1/tasks/${task.id}/move`, { method: 'POST', token: owner, json: { status } });
        if (res.status !== 200) throw new Error(res.text);
      }
    }
    return { wsA, wsB, ids };
  })();
  return seeded;
}

async function titles(query: string, token = owner): Promise<string[]> {
  const res = await fixture.tk.call(`/api/v1/tasks?${query}`, { token });
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return res.body.items.map((t: { title: string }) => t.title);
}

test('the list filters by status (one or many), workspace, assignee, priority, text and deadline range', async (t) => {
  const { wsA, wsB } = await seed();
  t.deepEqual((await titles('status=in_progress&sort=title')).sort(), ['alpha', 'delta']);
  t.deepEqual((await titles('status=in_progress&status=blocked&sort=title')), ['alpha', 'beta', 'delta']);
  t.deepEqual(await titles(`workspace=${wsA}&sort=title`), ['alpha', 'beta', 'gamma']);
  t.deepEqual(await titles(`status=in_progress&workspace=${wsB}`), ['delta']);
  t.deepEqual(await titles('assignee=u-1'), ['alpha']);
  t.deepEqual(await titles('assignee_type=agent'), ['gamma']);
  t.deepEqual((await titles('assignee=none&sort=title')), ['beta', 'delta', 'epsilon 50%_off', 'zeta']);
  t.deepEqual(await titles('priority=1&priority=5&sort=title'), ['alpha', 'delta', 'epsilon 50%_off']);
  t.deepEqual(await titles('q=NEEDLE'), ['beta']);
  t.deepEqual(await titles('q=50%25_'), ['epsilon 50%_off']);
  t.deepEqual(await titles('q=%25'), ['epsilon 50%_off'], 'a % in the text is literal');
  t.deepEqual(await titles('deadline_from=2030-01-15&deadline_to=2030-03-01T00:00:00Z&sort=deadline'), ['beta', 'delta']);
  t.deepEqual(await titles('status=scheduled'), ['zeta']);
});

test('the list sorts and pages with a stable total', async (t) => {
  await seed();
  t.deepEqual(await titles('sort=priority,title'), ['alpha', 'delta', 'beta', 'gamma', 'zeta', 'epsilon 50%_off']);
  t.deepEqual(await titles('sort=-priority,-title'), ['epsilon 50%_off', 'zeta', 'gamma', 'beta', 'delta', 'alpha']);
  t.deepEqual(await titles('sort=deadline,title'), ['alpha', 'beta', 'delta', 'epsilon 50%_off', 'gamma', 'zeta'], 'no deadline sorts last');
  const newestFirst = await titles('');
  t.is(newestFirst[0], 'zeta');
  const past = await fixture.tk.call('/api/v1/tasks?offset=100', { token: owner });
  t.like(past.body, { total: 6, items: [] }, 'a page past the end still says the total');
  const page = await fixture.tk.call('/api/v1/tasks?limit=2&offset=2&sort=title', { token: owner });
  t.like(page.body, { total: 6, limit: 2, offset: 2 });
  t.deepEqual(page.body.items.map((x: { title: string }) => x.title), ['delta', 'epsilon 50%_off']);
  const filteredTotal = await fixture.tk.call('/api/v1/tasks?status=in_progress&limit=1', { token: owner });
  t.like(filteredTotal.body, { total: 2 });
  t.is(filteredTotal.body.items.length, 1);
});

test('bad list parameters are 422 naming the parameter', async (t) => {
  const { tk } = fixture;
  const cases: [string, string][] = [
    ['status=done', 'status[0]'],
    ['priority=0', 'priority[0]'],
    ['priority=6', 'priority[0]'],
    ['sort=colour', 'sort'],
    ['sort=title,title', 'sort'],
    ['deadline_from=yesterday', 'deadline_from'],
    ['deadline_from=2030-02-30', 'deadline_from'],
    ['deadline_from=2030-02-01&deadline_to=2030-01-01', 'deadline_to'],
    ['workspace=nope', 'workspace'],
    ['limit=500', 'limit'],
    ['colour=red', 'colour'],
  ];
  for (const [query, field] of cases) {
    const res = await tk.call(`/api/v1/tasks?${query}`, { token: owner });
    t.is(res.status, 422, query);
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), `${query}: ${JSON.stringify(res.body.errors)}`);
  }
});

test('another entity sees none of these tasks', async (t) => {
  await seed();
  t.deepEqual(await titles('', 'other-token'), []);
  const board = await fixture.tk.call('/api/v1/tasks/board', { token: 'other-token' });
  t.is(board.body.total, 0);
});

test('the board groups by the five columns with counts, under the same filters', async (t) => {
  const { wsA } = await seed();
  const res = await fixture.tk.call('/api/v1/tasks/board', { token: owner });
  t.is(res.status, 200, res.text);
  const byKey = Object.fromEntries(res.body.columns.map((c: any) => [c.key, c]));
  t.deepEqual(res.body.columns.map((c: any) => c.title), ['To Do', 'Scheduled', 'In Progress', 'Needs Attention', 'Done']);
  t.is(byKey.todo.count, 1);
  t.is(byKey.scheduled.count, 1);
  t.is(byKey.in_progress.count, 2);
  t.is(byKey.needs_attention.count, 1);
  t.is(byKey.needs_attention.counts.blocked, 1);
  t.is(byKey.done.count, 1);
  t.is(res.body.total, 6);
  t.deepEqual(byKey.in_progress.items.map((x: any) => x.title), ['delta', 'alpha'], 'priority first, then newest');

  const filtered = await fixture.tk.call(`/api/v1/tasks/board?workspace=${wsA}&per_column=1`, { token: owner });
  const f = Object.fromEntries(filtered.body.columns.map((c: any) => [c.key, c]));
  t.is(filtered.body.total, 3);
  t.is(f.in_progress.count, 1);
  t.is(f.needs_attention.count, 1);
  t.is(f.todo.items.length, 1);
  const countsOnly = await fixture.tk.call('/api/v1/tasks/board?per_column=0', { token: owner });
  t.is(countsOnly.body.total, 6);
  t.deepEqual(countsOnly.body.columns.map((c: any) => c.items.length), [0, 0, 0, 0, 0]);
  const onlyDone = await fixture.tk.call('/api/v1/tasks/board?status=completed', { token: owner });
  t.deepEqual(onlyDone.body.columns.map((c: any) => c.count), [0, 0, 0, 0, 1]);
  const empty = await fixture.tk.call(`/api/v1/tasks/board?status=failed&workspace=${wsA}`, { token: owner });
  t.is(empty.body.total, 0);
  const text = await fixture.tk.call('/api/v1/tasks/board?q=needle', { token: owner });
  t.is(text.body.total, 1);
  t.is(text.body.columns[3].items[0].title, 'beta');
});

test('board preferences: defaults, saved per user, validated', async (t) => {
  const { tk } = fixture;
  const initial = await tk.call('/api/v1/tasks/board-preferences', { token: 'admin-token' });
  t.is(initial.status, 200);
  t.like(initial.body, { mode: 'board', updated_at: null });
  t.deepEqual(initial.body.column_order, ['todo', 'scheduled', 'in_progress', 'needs_attention', 'done']);
  const saved = await tk.call('/api/v1/tasks/board-preferences', {
    method: 'PUT',
    token: 'admin-token',
    json: { mode: 'list', visible_columns: ['todo', 'done'], column_order: ['done', 'todo', 'scheduled', 'in_progress', 'needs_attention'] },
  });
  t.is(saved.status, 200, saved.text);
  const again = await tk.call('/api/v1/tasks/board-preferences', { token: 'admin-token' });
  t.like(again.body, { mode: 'list' });
  t.deepEqual(again.body.visible_columns, ['todo', 'done']);
  t.is((await tk.call('/api/v1/tasks/board-preferences', { token: 'member-token' })).body.mode, 'board', 'another user keeps the defaults');
  const partial = await tk.call('/api/v1/tasks/board-preferences', { method: 'PUT', token: 'admin-token', json: { mode: 'board' } });
  t.deepEqual(partial.body.visible_columns, ['todo', 'done'], 'fields left out keep their value');

  const bad: [unknown, string][] = [
    [{ mode: 'grid' }, 'mode'],
    [{ visible_columns: ['todo', 'later'] }, 'visible_columns[1]'],
    [{ visible_columns: ['todo', 'todo'] }, 'visible_columns'],
    [{ column_order: ['todo', 'done'] }, 'column_order'],
    [{ column_order: ['todo', 'todo', 'scheduled', 'in_progress', 'needs_attention'] }, 'column_order'],
  ];
  for (const [json, field] of bad) {
    const res = await tk.call('/api/v1/tasks/board-preferences', { method: 'PUT', token: 'admin-token', json });
    t.is(res.status, 422, JSON.stringify(json));
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), `${JSON.stringify(json)}: ${JSON.stringify(res.body.errors)}`);
  }
  t.like((await tk.call('/api/v1/tasks/board-preferences', { token: 'admin-token' })).body, { mode: 'board' }, 'a refused PUT changed nothing');
});
