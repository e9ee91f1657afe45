import test from 'ava';
import { linearWorkflow, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

const OWNER = 'owner-token';
let k: WorkflowsKernel;

test.before(async () => {
  k = await startWorkflowsKernel('paging_lists', { plugins: ['tasks'], nodes: ['trigger', 'transform', 'end'] });
});
test.after.always(async () => {
  await k?.close();
});

async function ok(path: string, init: Parameters<WorkflowsKernel['call']>[1] = {}): Promise<any> {
  const res = await k.call(path, { token: OWNER, ...init });
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

const join = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

/** Every id of a list, one request, in its order. */
async function whole(path: string): Promise<string[]> {
  return (await ok(join(path, 'limit=200'))).items.map((i: { id: string }) => i.id);
}

/**
 * Follows next_cursor from the first page; `between` runs after each page (writes that land
 * while a client pages). Checks each page's shape on the way.
 */
async function walk(t: any, path: string, limit: number, between?: (page: number) => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const body = await ok(join(path, `limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`));
    t.is(body.limit, limit);
    t.true(body.items.length <= limit);
    t.is('offset' in body, cursor === null, 'offset only on an offset page');
    seen.push(...body.items.map((i: { id: string }) => i.id));
    cursor = body.next_cursor;
    if (!cursor) return seen;
    await between?.(page);
  }
  throw new Error(`${path}: still a next_cursor after 100 pages`);
}

const unique = (ids: string[]) => new Set(ids).size === ids.length;

test('tasks: in every sort, walking by cursor gives the same rows in the same order as one page', async (t) => {
  const ws = await k.createWorkspace(OWNER);
  const titles = ['b', 'a', 'b', 'c', 'a'];
  for (let i = 0; i < 13; i++) {
    const deadline = i % 3 === 0 ? undefined : `2031-0${(i % 4) + 1}-01T00:00:00Z`;
    await ok('/api/v1/tasks', { method: 'POST', json: { title: titles[i % titles.length], workspace_id: ws, priority: (i % 5) + 1, ...(deadline ? { deadline } : {}) } });
  }
  for (const sort of ['', '-priority,title', 'deadline', '-deadline,title', 'title', 'status,-updated_at', 'priority,-created_at']) {
    const path = `/api/v1/tasks?workspace=${ws}${sort ? `&sort=${sort}` : ''}`;
    const expected = await whole(path);
    t.is(expected.length, 13);
    t.deepEqual(await walk(t, path, 4), expected, sort || 'default sort');
  }
});

test('tasks: pages by cursor neither repeat nor skip a row while tasks are created; offset pages shift', async (t) => {
  const ws = await k.createWorkspace(OWNER);
  for (let i = 0; i < 10; i++) await ok('/api/v1/tasks', { method: 'POST', json: { title: `t${i}`, workspace_id: ws } });
  const path = `/api/v1/tasks?workspace=${ws}`;
  const before = await whole(path);
  const walked = await walk(t, path, 3, async () => {
    await ok('/api/v1/tasks', { method: 'POST', json: { title: 'arrived while paging', workspace_id: ws } });
  });
  t.deepEqual(walked, before, 'exactly the rows there were, newest first');
  const first = await ok(`${path}&limit=3&offset=0`);
  await ok('/api/v1/tasks', { method: 'POST', json: { title: 'one more', workspace_id: ws } });
  const second = await ok(`${path}&limit=3&offset=3`);
  t.true(second.items.some((i: { id: string }) => first.items.some((f: { id: string }) => f.id === i.id)), 'offset paging repeats a row (why cursors exist)');
  t.is(second.total, first.total + 1, 'the total is the whole list, under its filters');
});

test('task history and comments: walked by cursor, oldest first, later entries follow at the end', async (t) => {
  const task = await ok('/api/v1/tasks', { method: 'POST', json: { title: 'busy' } });
  for (let i = 0; i < 6; i++) {
    await ok(`/api/v1/tasks/${task.id}`, { method: 'PUT', json: { title: `busy ${i}` } });
    await ok(`/api/v1/tasks/${task.id}/logs`, { method: 'POST', json: { body: `comment ${i}` } });
  }
  for (const feed of ['history', 'logs']) {
    const path = `/api/v1/tasks/${task.id}/${feed}`;
    const walked = await walk(t, path, 2, async (page) => {
      if (page === 1) await ok(`/api/v1/tasks/${task.id}/logs`, { method: 'POST', json: { body: `while paging ${feed}` } });
    });
    t.true(unique(walked), feed);
    t.deepEqual(walked, await whole(path), `${feed}: the walk ends with what was added meanwhile`);
  }
  t.is((await k.call(`/api/v1/tasks/${task.id}/logs?cursor=${(await ok(`/api/v1/tasks/${task.id}/logs?limit=1`)).next_cursor}`, { token: 'other-token' })).status, 404, "another entity's task stays not found");
});

test('workspace activity: walked by cursor, newest first, stable while entries are added', async (t) => {
  const ws = await k.createWorkspace(OWNER);
  for (let i = 0; i < 7; i++) await ok(`/api/v1/workspaces/${ws}`, { method: 'PUT', json: { description: `v${i}` } });
  const path = `/api/v1/workspaces/${ws}/activity`;
  const before = await whole(path);
  t.true(before.length >= 8);
  const walked = await walk(t, path, 3, async (page) => {
    await ok(`/api/v1/workspaces/${ws}`, { method: 'PUT', json: { description: `during ${page}` } });
  });
  t.deepEqual(walked, before);
  const kinds = await ok(`${path}?kind=workspace.updated&limit=2`);
  const next = await ok(`${path}?kind=workspace.updated&limit=50&cursor=${kinds.next_cursor}`);
  t.true(next.items.every((i: { kind: string }) => i.kind === 'workspace.updated'), 'the filter holds on cursor pages');
});

test('workflow runs: walked by cursor, newest first, stable while runs are started', async (t) => {
  const wf = await k.createWorkflow(OWNER, linearWorkflow('paged'));
  const start = () => ok(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', json: { input: { name: 'x' }, wait: true } });
  for (let i = 0; i < 7; i++) await start();
  const path = `/api/v1/workflows/runs?workflow_id=${wf.id}`;
  const before = await whole(path);
  t.is(before.length, 7);
  t.deepEqual(await walk(t, path, 3, async () => void (await start())), before);
});

test('bad paging input on each of these lists is a 422 naming the parameter, never a 500', async (t) => {
  const ws = await k.createWorkspace(OWNER);
  const task = await ok('/api/v1/tasks', { method: 'POST', json: { title: 'x', workspace_id: ws } });
  await ok('/api/v1/tasks', { method: 'POST', json: { title: 'y', workspace_id: ws } });
  const lists = ['/api/v1/tasks', `/api/v1/tasks/${task.id}/history`, `/api/v1/tasks/${task.id}/logs`, `/api/v1/workspaces/${ws}/activity`, '/api/v1/workflows/runs'];
  const taskCursor = (await ok(`/api/v1/tasks?workspace=${ws}&limit=1`)).next_cursor as string;
  const forged = Buffer.from(JSON.stringify(['tasks:-created_at', ['2024-02-30T00:00:00Z', '00000000-0000-7000-8000-000000000000']])).toString('base64url');
  const cases: [string, string][] = [
    ['cursor=%%%', 'cursor'],
    ['cursor=', 'cursor'],
    [`cursor=${'A'.repeat(5000)}`, 'cursor'],
    [`cursor=${forged}`, 'cursor'],
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1e400', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=1e99', 'offset'],
    ['offset=1000001', 'offset'],
    ['offset=2.5', 'offset'],
    [`cursor=${taskCursor}&offset=3`, 'offset'],
  ];
  for (const list of lists) {
    for (const [query, field] of cases) {
      const res = await k.call(join(list, query), { token: OWNER });
      t.is(res.status, 422, `${list}?${query.slice(0, 60)}: ${res.text.slice(0, 200)}`);
      t.true((res.body?.errors ?? []).some((e: { field: string }) => e.field === field), `${list}?${query.slice(0, 60)} names ${field}: ${res.text.slice(0, 200)}`);
    }
  }
  for (const list of lists.slice(1)) {
    const res = await k.call(join(list, `cursor=${taskCursor}`), { token: OWNER });
    t.is(res.status, 422, `a tasks cursor on ${list}`);
  }
  const otherSort = await k.call(`/api/v1/tasks?workspace=${ws}&sort=title&cursor=${taskCursor}`, { token: OWNER });
  t.is(otherSort.status, 422, 'a cursor of another sort');
});

test('a run event stream refuses a Last-Event-ID header or last_event_id out of range with a 422 naming it', async (t) => {
  const wf = await k.createWorkflow(OWNER, linearWorkflow('streamed'));
  const { run_id } = await ok(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', json: { input: { name: 'x' }, wait: true } });
  const path = `/api/v1/workflows/runs/${run_id}/events`;
  for (const header of ['99999999999', '1e99', '-1', 'abc']) {
    const res = await k.call(path, { token: OWNER, headers: { 'Last-Event-ID': header } });
    t.is(res.status, 422, `Last-Event-ID: ${header}: ${res.text.slice(0, 200)}`);
    t.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['Last-Event-ID']);
  }
  for (const value of ['2147483648', '1e99', '-1']) {
    const res = await k.call(`${path}?last_event_id=${value}`, { token: OWNER });
    t.is(res.status, 422, `last_event_id=${value}`);
    t.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['last_event_id']);
  }
  const replay = await fetch(`${k.kernel.apiUrl}${path}`, { headers: { authorization: `Bearer ${OWNER}`, 'last-event-id': '1' } });
  t.is(replay.status, 200, 'an id in range replays');
  await replay.body?.cancel();
});
