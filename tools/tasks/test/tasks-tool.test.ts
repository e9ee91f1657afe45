import test from 'ava';
import { join } from 'node:path';
import { useTasksKernel } from '../../../test/helpers/tasks-kernel.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const MEMBER = { id: 'u-member', entity_id: 'e-1', role: 'member' };
const OTHER = { id: 'u-other', entity_id: 'e-2', role: 'owner' };

const ctx = useTasksKernel(test, 'tool_tasks', {}, async (tk) => {
  const record = await tk.kernel.loader.load(join(ROOT, 'tools', 'tasks'));
  if (record.state !== 'loaded') throw new Error(`tools/tasks did not load: ${record.error?.message}`);
});

function context(user: { id: string; entity_id: string }, workspace_id: string | null = null, extra: Record<string, unknown> = {}) {
  return { entity_id: user.entity_id, user_id: user.id, workspace_id, agent_id: null, run_id: null, step_id: null, invocation_id: 'call-1', ...extra };
}

function exec(args: Record<string, unknown>, opts: { user?: object | null; workspace?: string | null; meta?: Record<string, unknown>; context?: Record<string, unknown> } = {}): Promise<any> {
  const user = opts.user === undefined ? MEMBER : opts.user;
  const meta = opts.meta ?? {};
  if (user) meta.user = user;
  return ctx.tk.kernel.broker.call('tool.tasks.execute', { arguments: args, context: opts.context ?? context((user ?? MEMBER) as typeof MEMBER, opts.workspace ?? null) }, { meta });
}

async function failure(t: any, p: Promise<unknown>, type = 'TOOLS_ERR_FAILED'): Promise<any> {
  const err = await t.throwsAsync(p);
  t.is(err?.type, type);
  return err;
}

test('create in the workspace of the call, as the run user; get, update, comment, move, list', async (t) => {
  const ws = await ctx.tk.createWorkspace('owner-token', 'Tools');
  const meta: Record<string, unknown> = {};
  const created = await exec({ op: 'create', title: 'Write the report', priority: 2, deadline: '2030-01-31' }, { workspace: ws, meta });
  t.like(created, { title: 'Write the report', workspace_id: ws, priority: 2, created_by: 'u-member', entity_id: 'e-1', version: 1 });
  t.false('$statusCode' in meta, 'the callee response status does not leak into the caller meta');

  t.like(await exec({ op: 'get', task_id: created.id }, { workspace: ws }), { id: created.id, execution_record: [], subtasks: [] });
  const updated = await exec({ op: 'update', task_id: created.id, title: 'Write the final report', assignee: { type: 'user', id: 'u-member' } }, { workspace: ws });
  t.like(updated, { title: 'Write the final report', assignee: { type: 'user', id: 'u-member' }, version: 2 });
  const comment = await exec({ op: 'comment', task_id: created.id, body: 'Started on it.' }, { workspace: ws });
  t.like(comment, { task_id: created.id, body: 'Started on it.', author: { type: 'user', id: 'u-member' } });
  const target = updated.allowed_transitions[0];
  const moved = await exec({ op: 'move', task_id: created.id, status: target }, { workspace: ws });
  t.is(moved.status, target);

  await ctx.tk.createTask('owner-token', { title: 'Elsewhere' });
  const listed = await exec({ op: 'list' }, { workspace: ws });
  t.deepEqual(listed.items.map((i: { id: string }) => i.id), [created.id]);
  t.like(listed, { total: 1, limit: 20, offset: 0 });
  t.deepEqual((await exec({ op: 'list', statuses: ['completed'] }, { workspace: ws })).items, []);
  t.true((await exec({ op: 'list', query: 'Elsewhere' })).items.some((i: { title: string }) => i.title === 'Elsewhere'), 'without a workspace the whole entity is listed');
});

test('a task of another entity is not found, on every op', async (t) => {
  const mine = await ctx.tk.createTask('owner-token', { title: 'Private to e-1' });
  for (const args of [
    { op: 'get', task_id: mine.id },
    { op: 'update', task_id: mine.id, title: 'hijacked' },
    { op: 'comment', task_id: mine.id, body: 'hi' },
    { op: 'move', task_id: mine.id, status: 'pending' },
    { op: 'create', title: 'child', parent_id: mine.id },
  ]) {
    const err = await failure(t, exec(args, { user: OTHER }));
    t.like(err.data, { tool: 'tasks', cause: { code: 'NOT_FOUND', status: 404 } }, JSON.stringify(args));
  }
  const list = await exec({ op: 'list', query: 'Private to e-1' }, { user: OTHER });
  t.deepEqual(list.items, []);
  const unchanged = await ctx.tk.call(`/api/v1/tasks/${mine.id}`, { token: 'owner-token' });
  t.like(unchanged.body, { title: 'Private to e-1', version: 1 });
});

test('inside a workspace, a task of another workspace is not found, unless it is the run task', async (t) => {
  const a = await ctx.tk.createWorkspace('owner-token', 'A');
  const b = await ctx.tk.createWorkspace('owner-token', 'B');
  const inB = await ctx.tk.createTask('owner-token', { title: 'In B', workspace_id: b });
  const err = await failure(t, exec({ op: 'get', task_id: inB.id }, { workspace: a }));
  t.regex(err.message, /No task with id .* in this workspace/);
  await failure(t, exec({ op: 'comment', task_id: inB.id, body: 'x' }, { workspace: a }));
  const asRunTask = await exec({ op: 'get', task_id: inB.id }, { context: context(MEMBER, a, { task_id: inB.id }) });
  t.is(asRunTask.id, inB.id);
});

test('the callee refusals reach the model as tool errors with their reason', async (t) => {
  const task = await ctx.tk.createTask('owner-token', { title: 'Moves' });
  const illegal = await failure(t, exec({ op: 'move', task_id: task.id, status: 'completed' }));
  t.like(illegal.data, { cause: { code: 'TASKS_ERR_ILLEGAL_TRANSITION', status: 409 } });
  const stale = await failure(t, exec({ op: 'update', task_id: task.id, title: 'x', version: 7 }));
  t.like(stale.data, { cause: { code: 'TASKS_ERR_VERSION_CONFLICT', status: 409 } });
  const badDate = await failure(t, exec({ op: 'update', task_id: task.id, deadline: 'soon' }));
  t.like(badDate.data, { cause: { status: 422 } });
  t.regex(badDate.message, /deadline/);
  t.regex((await failure(t, exec({ op: 'update', task_id: task.id }))).message, /at least one field/);
  await failure(t, exec({ op: 'move', task_id: task.id, status: 'nonsense' }));
});

test('bad arguments are refused before anything runs; the run user is required and must be the context entity', async (t) => {
  for (const args of [{ op: 'create' }, { op: 'get' }, { op: 'comment', task_id: 'x' }, { op: 'move', task_id: 'x' }, { op: 'list', limit: 500 }, { op: 'delete', task_id: 'x' }, { op: 'get', task_id: 'x', sql: 1 }]) {
    await failure(t, exec(args), 'TOOLS_ERR_INVALID_ARGUMENTS');
  }
  await failure(t, exec({ op: 'list' }, { user: null }), 'TOOLS_ERR_CONTEXT');
  await failure(t, exec({ op: 'list' }, { context: context(OTHER) }), 'TOOLS_ERR_CONTEXT');
});
