import test from 'ava';
import { useFullKernel } from './helpers/full-kernel.ts';
import { linearWorkflow } from './workflows-helpers.ts';

const ids: Record<string, string> = {};

/** A workspace with a task, a public code, bindings and a run, archived; and an open workspace beside it. */
const fixture = useFullKernel(test, 'workspace_archived', async ({ make, call, tokens }) => {
  const owner = tokens.owner;
  ids.ws = (await make(owner, '/api/v1/workspaces', { name: 'Closing down' })).id;
  ids.open = (await make(owner, '/api/v1/workspaces', { name: 'Still open' })).id;
  ids.task = (await make(owner, '/api/v1/tasks', { title: 'Frozen', workspace_id: ids.ws })).id;
  ids.loose = (await make(owner, '/api/v1/tasks', { title: 'In the open one', workspace_id: ids.open })).id;
  ids.code = (await make(owner, `/api/v1/tasks/${ids.task}/public-codes`, {})).code;
  ids.wf = (await make(owner, '/api/v1/workflows', linearWorkflow('archived'))).id;
  ids.binding = (await make(owner, '/api/v1/workflows/bindings', { workflow_id: ids.wf, workspace_id: ids.ws, trigger: 'manual' })).id;
  ids.hook = (await make(owner, '/api/v1/workflows/bindings', { workflow_id: ids.wf, workspace_id: ids.ws, trigger: 'webhook' })).webhook_token;
  await make(owner, '/api/v1/workflows/bindings', { workflow_id: ids.wf, workspace_id: ids.ws, trigger: { type: 'event', event: 'probe.happened' } });
  ids.openEventBinding = (await make(owner, '/api/v1/workflows/bindings', { workflow_id: ids.wf, workspace_id: ids.open, trigger: { type: 'event', event: 'probe.happened' } })).id;
  ids.run = (await make(owner, `/api/v1/workflows/${ids.wf}/run`, { workspace_id: ids.ws, wait: true })).run_id;
  const archived = await call(`/api/v1/workspaces/${ids.ws}`, { method: 'DELETE', token: owner });
  if (archived.status !== 200) throw new Error(`archiving answered ${archived.status}: ${archived.text}`);
});

const owner = () => fixture.fk.tokens.owner;
const get = async (path: string) => (await fixture.fk.call(path, { token: owner() })).body;

/** Writes into the archived workspace, each with what it must leave unchanged. */
const REFUSED: [string, 'POST' | 'PUT' | 'DELETE', () => string, unknown, () => Promise<unknown>][] = [
  ['create a task in it', 'POST', () => '/api/v1/tasks', { title: 'Late', workspace_id: '$ws' }, async () => (await get('/api/v1/tasks?limit=1')).total],
  ['edit its task', 'PUT', () => `/api/v1/tasks/${ids.task}`, { title: 'Edited' }, async () => (await get(`/api/v1/tasks/${ids.task}`)).version],
  ['move its task', 'POST', () => `/api/v1/tasks/${ids.task}/move`, { status: 'in_progress' }, async () => (await get(`/api/v1/tasks/${ids.task}`)).status],
  ['comment on its task', 'POST', () => `/api/v1/tasks/${ids.task}/logs`, { body: 'Still here?' }, async () => (await get(`/api/v1/tasks/${ids.task}/logs`)).total],
  ['delete its task', 'DELETE', () => `/api/v1/tasks/${ids.task}`, undefined, async () => (await get(`/api/v1/tasks/${ids.task}`)).id],
  ['mint a public code for its task', 'POST', () => `/api/v1/tasks/${ids.task}/public-codes`, {}, async () => (await get(`/api/v1/tasks/${ids.task}/public-codes`)).total],
  ['move a task of another workspace into it', 'PUT', () => `/api/v1/tasks/${ids.loose}`, { workspace_id: '$ws' }, async () => (await get(`/api/v1/tasks/${ids.loose}`)).workspace_id],
  ['bind a workflow into it', 'POST', () => '/api/v1/workflows/bindings', { workflow_id: '$wf', workspace_id: '$ws', trigger: 'manual' }, async () => (await get('/api/v1/workflows/bindings?limit=200')).total],
  ['change its binding', 'PUT', () => `/api/v1/workflows/bindings/${ids.binding}`, { enabled: false }, async () => (await get('/api/v1/workflows/bindings?limit=200')).items],
  ['delete its binding', 'DELETE', () => `/api/v1/workflows/bindings/${ids.binding}`, undefined, async () => (await get('/api/v1/workflows/bindings?limit=200')).total],
  ['run its binding', 'POST', () => `/api/v1/workflows/bindings/${ids.binding}/run`, {}, async () => (await get('/api/v1/workflows/runs')).total],
  ['run a workflow in it', 'POST', () => `/api/v1/workflows/${ids.wf}/run`, { workspace_id: '$ws' }, async () => (await get('/api/v1/workflows/runs')).total],
  ['trigger an event in it', 'POST', () => '/api/v1/workflows/trigger', { event: 'probe.happened', workspace_id: '$ws' }, async () => (await get('/api/v1/workflows/runs')).total],
  ['step its run', 'POST', () => `/api/v1/workflows/runs/${ids.run}/step`, { step_id: 'shape', action: 'reconcile', outcome: 'succeeded' }, async () => (await get(`/api/v1/workflows/runs/${ids.run}`)).status],
  ['retry its run', 'POST', () => `/api/v1/workflows/runs/${ids.run}/retry`, {}, async () => (await get('/api/v1/workflows/runs')).total],
  ['resume its run', 'POST', () => `/api/v1/workflows/runs/${ids.run}/resume`, {}, async () => (await get(`/api/v1/workflows/runs/${ids.run}`)).status],
  ['create an agent in it', 'POST', () => '/api/v1/agents', { name: 'Late agent', workspace_id: '$ws' }, async () => (await get('/api/v1/agents')).total],
];

/** `$ws` and `$wf` in a body are the ids made in setup. */
const bodyOf = (json: unknown) => (json === undefined ? undefined : JSON.parse(JSON.stringify(json).replaceAll('"$ws"', JSON.stringify(ids.ws)).replaceAll('"$wf"', JSON.stringify(ids.wf))));

for (const [what, method, path, json, state] of REFUSED) {
  test.serial(`an archived workspace refuses to ${what}: 409 naming its state, and nothing changes`, async (t) => {
    const before = await state();
    const res = await fixture.fk.call(path(), { method, token: owner(), json: bodyOf(json) });
    t.is(res.status, 409, res.text);
    t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    t.like(res.body, { code: 'WORKSPACES_ERR_ARCHIVED', workspace_id: ids.ws, workspace_state: 'archived' });
    t.regex(res.body.detail, /archived/);
    t.deepEqual(await state(), before);
  });
}

test.serial('public routes into an archived workspace are refused the same way: a review code, a webhook', async (t) => {
  const { call } = fixture.fk;
  const review = await call(`/api/v1/public/task/${ids.code}/complete`, { method: 'POST', json: {} });
  t.is(review.status, 409, review.text);
  t.like(review.body, { code: 'WORKSPACES_ERR_ARCHIVED', workspace_state: 'archived' });
  t.is((await get(`/api/v1/tasks/${ids.task}`)).status, 'created');
  t.is((await call(`/api/v1/public/task/${ids.code}`)).status, 200, 'reading is still allowed');
  const runs = (await get('/api/v1/workflows/runs')).total;
  const hook = await call(`/api/v1/workflows/webhook/${ids.hook}`, { method: 'POST', json: { hello: 'world' } });
  t.is(hook.status, 409, hook.text);
  t.like(hook.body, { code: 'WORKSPACES_ERR_ARCHIVED', workspace_state: 'archived' });
  t.is((await get('/api/v1/workflows/runs')).total, runs);
});

test.serial('an event starts runs of the bindings of open workspaces only', async (t) => {
  const res = await fixture.fk.call('/api/v1/workflows/trigger', { method: 'POST', token: owner(), json: { event: 'probe.happened' } });
  t.is(res.status, 202, res.text);
  t.deepEqual(res.body.runs.map((r: { binding_id: string }) => r.binding_id), [ids.openEventBinding]);
});

test.serial('an internal caller (an agent tool) is refused too: the check is on the action, not the route', async (t) => {
  const { fk } = fixture;
  const me = await get('/api/v1/auth/me');
  const user = { id: me.id, entity_id: me.entity_id, role: 'member' };
  const err = await t.throwsAsync(fk.kernel.broker.call('tasks.update', { id: ids.task, title: 'By a tool' }, { meta: { user } }));
  t.like(err, { type: 'WORKSPACES_ERR_ARCHIVED', code: 409 });
  t.is((await get(`/api/v1/tasks/${ids.task}`)).title, 'Frozen');
});

test.serial('reads go on, and a run of it may still be cancelled (it only stops work)', async (t) => {
  const { call } = fixture.fk;
  t.is((await call(`/api/v1/tasks/${ids.task}`, { token: owner() })).status, 200);
  t.is((await call(`/api/v1/workflows/runs/${ids.run}`, { token: owner() })).status, 200);
  const cancel = await call(`/api/v1/workflows/runs/${ids.run}/cancel`, { method: 'POST', token: owner() });
  t.is(cancel.status, 409, 'the run is finished: the run says so, not the workspace');
  t.is(cancel.body.code, 'WORKFLOWS_ERR_ILLEGAL_TRANSITION');
});

test.serial('the same writes go through in an open workspace (the refusals above are the archive)', async (t) => {
  const { call } = fixture.fk;
  const edit = await call(`/api/v1/tasks/${ids.loose}`, { method: 'PUT', token: owner(), json: { title: 'Edited in the open' } });
  t.is(edit.status, 200, edit.text);
  const created = await call('/api/v1/tasks', { method: 'POST', token: owner(), json: { title: 'Fresh', workspace_id: ids.open } });
  t.is(created.status, 201, created.text);
});
