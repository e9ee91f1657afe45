import test from 'ava';
import { randomUUID } from 'node:crypto';
import { useAgentsKernel } from './agents-helpers.ts';
import { eventually } from './helpers/eventually.ts';
import { compileWithAjv } from './openapi-ajv.ts';

const fixture = useAgentsKernel(test, 'goals_crud');
const OWNER = 'owner-token';
const fieldsOf = (body: any): string[] => (body?.errors ?? []).map((e: { field: string }) => e.field).sort();

test('create answers 201 with defaults; GET, PUT and DELETE round trip', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const agent = await ak.createAgent(OWNER, { workspace_id: ws });
  const res = await ak.call('/api/v1/goals', {
    method: 'POST',
    token: 'member-token',
    json: { workspace_id: ws, objective: 'Answer every ticket within a day\nand keep customers happy', metrics: [{ name: 'Median reply hours', target: 24, direction: 'decrease', unit: 'h' }, { name: 'CSAT', target: 4.5, current: 4.1 }], agent_id: agent.id, due_at: '2030-06-30' },
  });
  t.is(res.status, 201, res.text);
  t.like(res.body, { entity_id: 'e-1', workspace_id: ws, title: 'Answer every ticket within a day', status: 'active', agent_id: agent.id, due_at: '2030-06-30T00:00:00.000Z', created_by: 'u-member', version: 1 });
  t.deepEqual(res.body.metrics, [
    { name: 'Median reply hours', target: 24, unit: 'h', current: null, direction: 'decrease' },
    { name: 'CSAT', target: 4.5, unit: null, current: 4.1, direction: 'increase' },
  ]);
  const id = res.body.id;
  t.deepEqual((await ak.call(`/api/v1/goals/${id}`, { token: OWNER })).body, res.body);

  const metrics = res.body.metrics.map((m: any) => ({ ...m, current: m.name === 'CSAT' ? 4.6 : 20 }));
  const put = await ak.call(`/api/v1/goals/${id}`, { method: 'PUT', token: 'member-token', json: { status: 'achieved', metrics, title: 'Fast answers', due_at: null } });
  t.is(put.status, 200, put.text);
  t.like(put.body, { status: 'achieved', title: 'Fast answers', due_at: null, version: 2 });
  t.is(put.body.metrics[1].current, 4.6);
  const same = await ak.call(`/api/v1/goals/${id}`, { method: 'PUT', token: OWNER, json: { status: 'achieved', metrics } });
  t.is(same.body.version, 2, 'a no-op writes nothing');

  t.is((await ak.call(`/api/v1/goals/${id}`, { method: 'DELETE', token: 'member-token' })).status, 204);
  t.is((await ak.call(`/api/v1/goals/${id}`, { token: OWNER })).status, 404);
});

test('the list pages newest first and filters by workspace, status and agent', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const other = await ak.createWorkspace(OWNER);
  const agent = await ak.createAgent(OWNER);
  const a = await ak.createGoal(OWNER, { workspace_id: ws });
  const b = await ak.createGoal(OWNER, { workspace_id: ws, agent_id: agent.id });
  const c = await ak.createGoal(OWNER, { workspace_id: other });
  await ak.call(`/api/v1/goals/${a.id}`, { method: 'PUT', token: OWNER, json: { status: 'abandoned' } });
  const ids = async (query: string) => (await ak.call(`/api/v1/goals?${query}`, { token: OWNER })).body.items.map((g: { id: string }) => g.id);
  t.deepEqual(await ids(`workspace_id=${ws}`), [b.id, a.id]);
  t.deepEqual(await ids(`workspace_id=${ws}&status=abandoned`), [a.id]);
  t.deepEqual(await ids(`agent_id=${agent.id}`), [b.id]);
  t.deepEqual(await ids(`workspace_id=${other}`), [c.id]);
  const page = (await ak.call(`/api/v1/goals?workspace_id=${ws}&limit=1&offset=1`, { token: OWNER })).body;
  t.like(page, { total: 2, limit: 1, offset: 1 });
  t.deepEqual(page.items.map((g: { id: string }) => g.id), [a.id]);
  t.is((await ak.call(`/api/v1/goals?workspace_id=${ws}`, { token: 'other-token' })).body.total, 0);
  for (const [query, field] of [['status=done', 'status'], ['limit=201', 'limit'], ['workspace_id=x', 'workspace_id'], ['q=x', 'q']]) {
    const res = await ak.call(`/api/v1/goals?${query}`, { token: OWNER });
    t.is(res.status, 422, query);
    t.deepEqual(fieldsOf(res.body), [field], query);
  }
});

test('422 names the field for every bad input, and nothing is created', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const elsewhere = await ak.createWorkspace(OWNER);
  const foreignWs = await ak.createWorkspace('other-token');
  const foreignAgent = await ak.createAgent('other-token');
  const otherWsAgent = await ak.createAgent(OWNER, { workspace_id: elsewhere });
  const metric = { name: 'm', target: 1 };
  const cases: [unknown, string[]][] = [
    [{ workspace_id: ws }, ['objective']],
    [{ objective: 'x' }, ['workspace_id']],
    [{ workspace_id: ws, objective: '   ' }, ['objective']],
    [{ workspace_id: ws, objective: 'o'.repeat(10_001) }, ['objective']],
    [{ workspace_id: ws, objective: 'x', title: 't'.repeat(201) }, ['title']],
    [{ workspace_id: ws, objective: 42 }, ['objective']],
    [{ workspace_id: ws, objective: 'x', colour: 'red' }, ['colour']],
    [{ workspace_id: ws, objective: 'x', status: 'achieved' }, ['status']],
    [{ workspace_id: ws, objective: 'x', metrics: Array.from({ length: 21 }, (_, i) => ({ name: `m${i}`, target: 1 })) }, ['metrics']],
    [{ workspace_id: ws, objective: 'x', metrics: [{ name: 'm', target: '10' }] }, ['metrics[0].target']],
    [{ workspace_id: ws, objective: 'x', metrics: [{ target: 1 }] }, ['metrics[0].name']],
    [{ workspace_id: ws, objective: 'x', metrics: [{ ...metric, direction: 'up' }] }, ['metrics[0].direction']],
    [{ workspace_id: ws, objective: 'x', metrics: [{ ...metric, goal: 2 }] }, ['metrics[0].goal']],
    [{ workspace_id: ws, objective: 'x', metrics: [metric, { name: 'M', target: 2 }] }, ['metrics[1].name']],
    [{ workspace_id: ws, objective: 'x', due_at: 'tomorrow' }, ['due_at']],
    [{ workspace_id: ws, objective: 'x', due_at: '2030-02-30' }, ['due_at']],
    [{ workspace_id: foreignWs, objective: 'x' }, ['workspace_id']],
    [{ workspace_id: randomUUID(), objective: 'x' }, ['workspace_id']],
    [{ workspace_id: ws, objective: 'x', agent_id: foreignAgent.id }, ['agent_id']],
    [{ workspace_id: ws, objective: 'x', agent_id: otherWsAgent.id }, ['agent_id']],
    [{ workspace_id: ws, objective: 'x', agent_id: 'nope' }, ['agent_id']],
  ];
  for (const [body, fields] of cases) {
    const res = await ak.call('/api/v1/goals', { method: 'POST', token: OWNER, json: body });
    t.is(res.status, 422, JSON.stringify(body).slice(0, 200));
    t.is(res.body.code, 'VALIDATION_FAILED');
    t.deepEqual(fieldsOf(res.body), fields, JSON.stringify(body).slice(0, 200));
  }
  t.is((await ak.call(`/api/v1/goals?workspace_id=${ws}`, { token: OWNER })).body.total, 0);

  const goal = await ak.createGoal(OWNER, { workspace_id: ws });
  const putCases: [unknown, string[]][] = [
    [{ status: 'done' }, ['status']],
    [{ workspace_id: elsewhere }, ['workspace_id']],
    [{ agent_id: otherWsAgent.id, title: 'Changed' }, ['agent_id']],
    [{ metrics: [{ name: 'm', target: 1, current: 'high' }] }, ['metrics[0].current']],
    [{ objective: '' }, ['objective']],
  ];
  for (const [body, fields] of putCases) {
    const res = await ak.call(`/api/v1/goals/${goal.id}`, { method: 'PUT', token: OWNER, json: body });
    t.is(res.status, 422, JSON.stringify(body));
    t.deepEqual(fieldsOf(res.body), fields, JSON.stringify(body));
  }
  t.like((await ak.call(`/api/v1/goals/${goal.id}`, { token: OWNER })).body, { title: 'Grow', version: 1 });
});

test("another entity's goal is 404 on every route, as is a non-UUID id", async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const goal = await ak.createGoal(OWNER, { workspace_id: ws });
  for (const id of [goal.id, 'not-a-uuid']) {
    for (const [method, json] of [['GET', undefined], ['PUT', { status: 'abandoned' }], ['DELETE', undefined]] as const) {
      const res = await ak.call(`/api/v1/goals/${id}`, { method, token: 'other-token', json });
      t.is(res.status, 404, `${method} ${id}`);
    }
  }
  t.like((await ak.call(`/api/v1/goals/${goal.id}`, { token: OWNER })).body, { status: 'active', version: 1 });
});

test('a deleted agent no longer owns goals', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const agent = await ak.createAgent(OWNER, { workspace_id: ws });
  const goal = await ak.createGoal(OWNER, { workspace_id: ws, agent_id: agent.id });
  t.is((await ak.call(`/api/v1/goals?agent_id=${agent.id}`, { token: OWNER })).body.total, 1);
  t.is((await ak.call(`/api/v1/agents/${agent.id}`, { method: 'DELETE', token: OWNER })).status, 204);
  await eventually(async () => (await ak.call(`/api/v1/goals/${goal.id}`, { token: OWNER })).body.agent_id === null);
  t.like((await ak.call(`/api/v1/goals/${goal.id}`, { token: OWNER })).body, { agent_id: null, version: 2 });
  t.is((await ak.call(`/api/v1/goals?agent_id=${agent.id}`, { token: OWNER })).body.total, 0, 'the list cache saw it');
});

test('answers match their declared response schemas in the OpenAPI document', async (t) => {
  const { ak } = fixture;
  const doc = (await ak.call('/api/openapi.json')).body;
  const expected: [string, string[]][] = [
    ['/api/v1/goals', ['get', 'post']],
    ['/api/v1/goals/{goal_id}', ['get', 'put', 'delete']],
    ['/api/v1/plans', ['get']],
    ['/api/v1/plans/{plan_id}', ['get']],
    ['/api/v1/plans/{plan_id}/approve', ['post']],
    ['/api/v1/plans/{plan_id}/reject', ['post']],
  ];
  for (const [path, methods] of expected) for (const method of methods) t.truthy(doc.paths[path]?.[method]?.summary, `${method} ${path}`);
  const schemaOf = (path: string, method: string, status = '200') => compileWithAjv(doc.paths[path][method].responses[status].content['application/json'].schema);
  const ws = await ak.createWorkspace(OWNER);
  const goal = await ak.call('/api/v1/goals', { method: 'POST', token: OWNER, json: { workspace_id: ws, objective: 'Documented', metrics: [{ name: 'n', target: 3 }], due_at: '2031-01-01T10:00:00+02:00' } });
  t.true(schemaOf('/api/v1/goals', 'post', '201')(goal.body));
  t.true(schemaOf('/api/v1/goals/{goal_id}', 'get')((await ak.call(`/api/v1/goals/${goal.body.id}`, { token: OWNER })).body));
  t.true(schemaOf('/api/v1/goals', 'get')((await ak.call('/api/v1/goals', { token: OWNER })).body));
  t.true(schemaOf('/api/v1/plans', 'get')((await ak.call('/api/v1/plans', { token: OWNER })).body));
});
