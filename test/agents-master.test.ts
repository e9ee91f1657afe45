import test from 'ava';
import { useAgentsKernel, USERS } from './agents-helpers.ts';
import { eventually } from './helpers/eventually.ts';

const fixture = useAgentsKernel(test, 'agents_master');
const OWNER = 'owner-token';
const fieldsOf = (body: any): string[] => (body?.errors ?? []).map((e: { field: string }) => e.field).sort();
const get = async (id: string) => (await fixture.ak.call(`/api/v1/agents/${id}`, { token: OWNER })).body;

test('a second master clears the first, whose version moves on; agents.master answers the active one', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  t.is(await ak.act('agents.master', { workspace_id: ws }), null);
  const first = await ak.createAgent(OWNER, { name: 'First', workspace_id: ws, is_master: true });
  t.like(await ak.act('agents.master', { workspace_id: ws }), { id: first.id });
  const second = await ak.createAgent(OWNER, { name: 'Second', workspace_id: ws, is_master: true });
  t.like(await get(first.id), { is_master: false, version: 2 });
  t.like(await get(second.id), { is_master: true, version: 1 });
  t.like(await ak.act('agents.master', { workspace_id: ws }), { id: second.id, is_master: true });
  await eventually(async () => ak.events.some((e) => e.name === 'agent.updated' && e.payload.agent_id === first.id));
  t.like(ak.events.find((e) => e.name === 'agent.updated' && e.payload.agent_id === first.id)!.payload, { fields: ['is_master'], version: 2, workspace_id: ws });

  const third = await ak.createAgent(OWNER, { name: 'Third', workspace_id: ws });
  const put = await ak.call(`/api/v1/agents/${third.id}`, { method: 'PUT', token: 'member-token', json: { is_master: true } });
  t.like(put.body, { is_master: true, version: 2 });
  t.like(await get(second.id), { is_master: false, version: 2 });
  const masters = (await ak.call(`/api/v1/agents?workspace_id=${ws}&is_master=true`, { token: OWNER })).body.items;
  t.deepEqual(masters.map((a: { id: string }) => a.id), [third.id]);

  await ak.call(`/api/v1/agents/${third.id}`, { method: 'PUT', token: OWNER, json: { status: 'disabled' } });
  t.is(await ak.act('agents.master', { workspace_id: ws }), null, 'a disabled master is not answered');
  t.is(await ak.act('agents.master', { workspace_id: ws }, USERS.other), null, "another entity never sees the workspace's master");
  t.is(await ak.act('agents.master', { workspace_id: 'not-a-uuid' }), null);
});

test('masters of different workspaces do not touch each other; moving a master takes the flag to the new workspace', async (t) => {
  const { ak } = fixture;
  const one = await ak.createWorkspace(OWNER);
  const two = await ak.createWorkspace(OWNER);
  const a = await ak.createAgent(OWNER, { workspace_id: one, is_master: true });
  const b = await ak.createAgent(OWNER, { workspace_id: two, is_master: true });
  t.like(await get(a.id), { is_master: true, version: 1 });
  const moved = await ak.call(`/api/v1/agents/${a.id}`, { method: 'PUT', token: OWNER, json: { workspace_id: two } });
  t.like(moved.body, { workspace_id: two, is_master: true, version: 2 });
  t.like(await get(b.id), { is_master: false, version: 2 });
  t.is(await ak.act('agents.master', { workspace_id: one }), null);
});

test('a master cannot become entity-wide (422 on is_master), and nothing changes', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const master = await ak.createAgent(OWNER, { workspace_id: ws, is_master: true });
  const res = await ak.call(`/api/v1/agents/${master.id}`, { method: 'PUT', token: OWNER, json: { workspace_id: null } });
  t.is(res.status, 422);
  t.deepEqual(fieldsOf(res.body), ['is_master']);
  t.like(await get(master.id), { workspace_id: ws, is_master: true, version: 1 });
  const both = await ak.call(`/api/v1/agents/${master.id}`, { method: 'PUT', token: OWNER, json: { workspace_id: null, is_master: false } });
  t.like(both.body, { workspace_id: null, is_master: false, version: 2 });
});

test('concurrent requests making masters in one workspace leave exactly one', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const existing = await Promise.all(Array.from({ length: 4 }, (_, i) => ak.createAgent(OWNER, { name: `Existing ${i}`, workspace_id: ws })));
  const answers = await Promise.all([
    ...Array.from({ length: 6 }, (_, i) => ak.call('/api/v1/agents', { method: 'POST', token: OWNER, json: { name: `Racer ${i}`, workspace_id: ws, is_master: true } })),
    ...existing.map((a) => ak.call(`/api/v1/agents/${a.id}`, { method: 'PUT', token: OWNER, json: { is_master: true } })),
  ]);
  t.deepEqual(answers.map((r) => r.status).sort(), [...Array(4).fill(200), ...Array(6).fill(201)]);
  const masters = (await ak.call(`/api/v1/agents?workspace_id=${ws}&is_master=true`, { token: OWNER })).body;
  t.is(masters.total, 1);
  const all = (await ak.call(`/api/v1/agents?workspace_id=${ws}`, { token: OWNER })).body.items;
  t.is(all.filter((a: { is_master: boolean }) => a.is_master).length, 1);
});

test("the workspace dashboard shows the workspace's agents and its master; deleting the workspace deletes its agents only", async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER, 'Doomed');
  const kept = await ak.createAgent(OWNER, { name: 'Entity-wide' });
  const master = await ak.createAgent(OWNER, { workspace_id: ws, is_master: true });
  const helper = await ak.createAgent(OWNER, { workspace_id: ws });
  const dashboard = (await ak.call(`/api/v1/workspaces/${ws}`, { token: OWNER })).body.dashboard;
  t.deepEqual(dashboard.agents, { agents: 2, master_agent_id: master.id });
  const before = (await ak.call(`/api/v1/agents?workspace_id=${ws}`, { token: OWNER })).body.items.map((a: { id: string }) => a.id);
  t.true(before.includes(master.id), 'the page is cached now');

  t.is((await ak.call(`/api/v1/workspaces/${ws}`, { method: 'DELETE', token: OWNER })).status, 200);
  t.is((await ak.call(`/api/v1/workspaces/${ws}`, { method: 'DELETE', token: OWNER })).status, 204);
  await eventually(async () => (await ak.call(`/api/v1/agents/${master.id}`, { token: OWNER })).status === 404);
  t.is((await ak.call(`/api/v1/agents/${helper.id}`, { token: OWNER })).status, 404);
  t.is((await ak.call(`/api/v1/agents/${kept.id}`, { token: OWNER })).status, 200);
  const listed = (await ak.call(`/api/v1/agents?workspace_id=${ws}`, { token: OWNER })).body.items.map((a: { id: string }) => a.id);
  t.true(listed.includes(kept.id));
  t.false(listed.includes(master.id) || listed.includes(helper.id), 'the list cache saw the cascade');
  await eventually(async () => ak.events.filter((e) => e.name === 'agent.deleted' && e.payload.workspace_id === ws).length === 2);
  t.deepEqual(ak.events.find((e) => e.name === 'agent.deleted' && e.payload.agent_id === master.id)!.payload.actor, { type: 'system', id: 'workspace.deleted' });
});

test('an archived workspace takes no new agents', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  t.is((await ak.call(`/api/v1/workspaces/${ws}`, { method: 'DELETE', token: OWNER })).status, 200);
  const res = await ak.call('/api/v1/agents', { method: 'POST', token: OWNER, json: { name: 'Late', workspace_id: ws } });
  t.is(res.status, 409, res.text);
  t.like(res.body, { code: 'WORKSPACES_ERR_ARCHIVED', workspace_id: ws, workspace_state: 'archived' });
});
