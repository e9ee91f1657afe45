import test from 'ava';
import { randomUUID } from 'node:crypto';
import { useAgentsKernel, USERS } from './agents-helpers.ts';
import { eventually } from './helpers/eventually.ts';
import { compileWithAjv } from './openapi-ajv.ts';

const fixture = useAgentsKernel(test, 'agents_crud');
const OWNER = 'owner-token';
const fieldsOf = (body: any): string[] => (body?.errors ?? []).map((e: { field: string }) => e.field).sort();

test('create answers 201 with defaults; GET, PUT and DELETE round trip', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const res = await ak.call('/api/v1/agents', { method: 'POST', token: 'member-token', json: { name: ' Triage ', workspace_id: ws.toUpperCase(), tools: ['web_search', 'datetime'] } });
  t.is(res.status, 201, res.text);
  t.like(res.body, {
    entity_id: 'e-1', workspace_id: ws, name: 'Triage', description: '', instructions: '', api_key_id: null, model: null,
    max_rounds: 10, is_master: false, status: 'active', version: 1, created_by: 'u-member',
  });
  t.deepEqual(res.body.tools, ['web_search', 'datetime']);
  t.is(new Date(res.body.created_at).toISOString(), res.body.created_at);
  const id = res.body.id;
  t.deepEqual((await ak.call(`/api/v1/agents/${id}`, { token: OWNER })).body, res.body);

  const put = await ak.call(`/api/v1/agents/${id}`, { method: 'PUT', token: 'member-token', json: { instructions: 'Be brief.', max_rounds: 100, tools: [], model: 'gpt-x' } });
  t.is(put.status, 200, put.text);
  t.like(put.body, { name: 'Triage', instructions: 'Be brief.', max_rounds: 100, model: 'gpt-x', version: 2 });
  t.deepEqual(put.body.tools, []);
  const same = await ak.call(`/api/v1/agents/${id}`, { method: 'PUT', token: OWNER, json: { instructions: 'Be brief.' } });
  t.is(same.body.version, 2, 'a no-op writes nothing');
  const entityWide = await ak.call(`/api/v1/agents/${id}`, { method: 'PUT', token: OWNER, json: { workspace_id: null, status: 'disabled' } });
  t.like(entityWide.body, { workspace_id: null, status: 'disabled', version: 3 });

  t.is((await ak.call(`/api/v1/agents/${id}`, { method: 'DELETE', token: 'admin-token' })).status, 204);
  t.is((await ak.call(`/api/v1/agents/${id}`, { token: OWNER })).status, 404);
  await eventually(async () => ak.events.some((e) => e.name === 'agent.deleted' && e.payload.agent_id === id));
  const mine = ak.events.filter((e) => e.payload.agent_id === id).map((e) => e.name);
  t.deepEqual(mine, ['agent.created', 'agent.updated', 'agent.updated', 'agent.deleted']);
  t.deepEqual(ak.events.find((e) => e.name === 'agent.updated' && e.payload.agent_id === id)!.payload.fields.sort(), ['instructions', 'max_rounds', 'model', 'tools']);
});

test('the list pages newest first and filters by workspace (plus entity-wide), q, status and is_master', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const other = await ak.createWorkspace(OWNER);
  const a = await ak.createAgent(OWNER, { name: 'Listed alpha', workspace_id: ws });
  const b = await ak.createAgent(OWNER, { name: 'Listed beta' });
  const c = await ak.createAgent(OWNER, { name: 'Listed gamma', workspace_id: other, status: 'disabled' });
  const d = await ak.createAgent(OWNER, { name: 'Listed 50%_off', workspace_id: ws, is_master: true });
  const ids = async (query: string) => (await ak.call(`/api/v1/agents?q=Listed${query}`, { token: OWNER })).body.items.map((x: { id: string }) => x.id);
  t.deepEqual(await ids(''), [d.id, c.id, b.id, a.id]);
  t.deepEqual(await ids(`&workspace_id=${ws}`), [d.id, b.id, a.id]);
  t.deepEqual(await ids('&status=disabled'), [c.id]);
  t.deepEqual(await ids('&is_master=true'), [d.id]);
  t.deepEqual(await ids('&is_master=false&limit=2&offset=1'), [b.id, a.id]);
  t.deepEqual(await ids(encodeURIComponent(' 50%_')), [d.id], 'q matches % and _ literally');
  const page = await ak.call('/api/v1/agents?q=listed&limit=1', { token: OWNER });
  t.like(page.body, { total: 4, limit: 1, offset: 0 });
  t.deepEqual((await ak.call('/api/v1/agents?q=Listed', { token: 'other-token' })).body.total, 0, 'another entity sees none');
});

test('422 names the field for every bad input, and nothing is created', async (t) => {
  const { ak } = fixture;
  const ws = await ak.createWorkspace(OWNER);
  const foreignWs = await ak.createWorkspace('other-token');
  const cases: [unknown, string[]][] = [
    [{ description: 'no name' }, ['name']],
    [{ name: 'x'.repeat(121) }, ['name']],
    [{ name: 42 }, ['name']],
    [{ name: 'Bad', instructions: 'i'.repeat(100_001) }, ['instructions']],
    [{ name: 'Bad', description: 'd'.repeat(2001) }, ['description']],
    [{ name: 'Bad', colour: 'red' }, ['colour']],
    [{ name: 'Bad', status: 'sleeping' }, ['status']],
    [{ name: 'Bad', tools: ['ok_tool', 'Bad-Name'] }, ['tools[1]']],
    [{ name: 'Bad', tools: 'web_search' }, ['tools']],
    [{ name: 'Bad', tools: ['a', 'b', 'a'] }, ['tools[2]']],
    [{ name: 'Bad', tools: Array.from({ length: 101 }, (_, i) => `t${i}`) }, ['tools']],
    [{ name: 'Bad', max_rounds: 0 }, ['max_rounds']],
    [{ name: 'Bad', max_rounds: 101 }, ['max_rounds']],
    [{ name: 'Bad', max_rounds: 1.5 }, ['max_rounds']],
    [{ name: 'Bad', max_rounds: '5' }, ['max_rounds']],
    [{ name: 'Bad', is_master: true }, ['is_master']],
    [{ name: 'Bad', is_master: 'yes', workspace_id: ws }, ['is_master']],
    [{ name: 'Bad', workspace_id: 'not-a-uuid' }, ['workspace_id']],
    [{ name: 'Bad', workspace_id: foreignWs }, ['workspace_id']],
    [{ name: 'Bad', workspace_id: randomUUID() }, ['workspace_id']],
    [{ name: 'Bad', api_key_id: randomUUID() }, ['api_key_id']],
    [{ name: 'Bad', model: '' }, ['model']],
  ];
  for (const [body, fields] of cases) {
    const res = await ak.call('/api/v1/agents', { method: 'POST', token: OWNER, json: body });
    t.is(res.status, 422, JSON.stringify(body).slice(0, 200));
    t.is(res.body.code, 'VALIDATION_FAILED');
    t.deepEqual(fieldsOf(res.body), fields, JSON.stringify(body).slice(0, 200));
  }
  t.is((await ak.call('/api/v1/agents?q=Bad', { token: OWNER })).body.total, 0);
});

test('api_key_id must be a key of the caller entity', async (t) => {
  const { ak } = fixture;
  const key = async (token: string) => {
    const res = await ak.call('/api/v1/api-keys', { method: 'POST', token, json: { name: 'Key', provider: 'openai', api_key: 'sk-test-0123456789abcdef', default_model: 'gpt-test' } });
    if (res.status !== 201) throw new Error(res.text);
    return res.body.id as string;
  };
  const mine = await key(OWNER);
  const theirs = await key('other-token');
  const ok = await ak.call('/api/v1/agents', { method: 'POST', token: OWNER, json: { name: 'Keyed', api_key_id: mine } });
  t.is(ok.status, 201, ok.text);
  t.is(ok.body.api_key_id, mine);
  const bad = await ak.call('/api/v1/agents', { method: 'POST', token: OWNER, json: { name: 'Keyed', api_key_id: theirs } });
  t.is(bad.status, 422);
  t.deepEqual(fieldsOf(bad.body), ['api_key_id']);
  const badPut = await ak.call(`/api/v1/agents/${ok.body.id}`, { method: 'PUT', token: OWNER, json: { api_key_id: theirs, name: 'Renamed' } });
  t.deepEqual(fieldsOf(badPut.body), ['api_key_id']);
  t.like((await ak.call(`/api/v1/agents/${ok.body.id}`, { token: OWNER })).body, { name: 'Keyed', version: 1 });
});

test('a rejected update changes nothing', async (t) => {
  const { ak } = fixture;
  const agent = await ak.createAgent(OWNER, { name: 'Steady' });
  const foreignWs = await ak.createWorkspace('other-token');
  const cases: [unknown, string[]][] = [
    [{ name: 'Changed', max_rounds: 0 }, ['max_rounds']],
    [{ name: 'Changed', tools: ['x', 'x'] }, ['tools[1]']],
    [{ name: 'Changed', is_master: true }, ['is_master']],
    [{ name: 'Changed', workspace_id: foreignWs }, ['workspace_id']],
    [{ name: 'Changed', version: 9 }, ['version']],
    [{ name: '' }, ['name']],
  ];
  for (const [body, fields] of cases) {
    const res = await ak.call(`/api/v1/agents/${agent.id}`, { method: 'PUT', token: OWNER, json: body });
    t.is(res.status, 422, JSON.stringify(body));
    t.deepEqual(fieldsOf(res.body), fields, JSON.stringify(body));
  }
  t.like((await ak.call(`/api/v1/agents/${agent.id}`, { token: OWNER })).body, { name: 'Steady', version: 1, updated_at: agent.updated_at });
});

test("another entity's agent is 404 on every route, as is a non-UUID id", async (t) => {
  const { ak } = fixture;
  const agent = await ak.createAgent(OWNER, { name: 'Private' });
  for (const id of [agent.id, 'not-a-uuid']) {
    for (const [method, json] of [['GET', undefined], ['PUT', { name: 'Stolen' }], ['DELETE', undefined]] as const) {
      const res = await ak.call(`/api/v1/agents/${id}`, { method, token: 'other-token', json });
      t.is(res.status, 404, `${method} ${id}`);
      t.is(res.body.code, 'NOT_FOUND');
    }
  }
  await t.throwsAsync(ak.act('agents.resolve', { agent_id: agent.id }, USERS.other), { message: /No agent/ });
  t.like(await ak.act('agents.resolve', { agent_id: agent.id }), { id: agent.id, name: 'Private', version: 1 });
  t.like((await ak.call(`/api/v1/agents/${agent.id}`, { token: OWNER })).body, { name: 'Private', version: 1 });
});

test('deleting needs an owner or admin; a member gets 403', async (t) => {
  const { ak } = fixture;
  const agent = await ak.createAgent('member-token');
  const denied = await ak.call(`/api/v1/agents/${agent.id}`, { method: 'DELETE', token: 'member-token' });
  t.is(denied.status, 403);
  t.is(denied.body.code, 'FORBIDDEN');
  t.is((await ak.call(`/api/v1/agents/${agent.id}`, { token: OWNER })).status, 200);
  t.is((await ak.call(`/api/v1/agents/${agent.id}`, { method: 'DELETE', token: OWNER })).status, 204);
  t.is((await ak.call(`/api/v1/agents/${agent.id}`, { method: 'DELETE', token: OWNER })).status, 404);
});

test('bad list parameters are refused with the field named', async (t) => {
  const { ak } = fixture;
  for (const [query, field] of [['status=gone', 'status'], ['limit=0', 'limit'], ['limit=201', 'limit'], ['offset=-1', 'offset'], ['is_master=maybe', 'is_master'], ['workspace_id=nope', 'workspace_id'], ['sort=name', 'sort']]) {
    const res = await ak.call(`/api/v1/agents?${query}`, { token: OWNER });
    t.is(res.status, 422, query);
    t.deepEqual(fieldsOf(res.body), [field], query);
  }
});

test('answers match their declared response schemas in the OpenAPI document', async (t) => {
  const { ak } = fixture;
  const doc = (await ak.call('/api/openapi.json')).body;
  for (const [path, methods] of [['/api/v1/agents', ['get', 'post']], ['/api/v1/agents/{agent_id}', ['get', 'put', 'delete']]] as const) {
    for (const method of methods) t.truthy(doc.paths[path]?.[method]?.summary, `${method} ${path}`);
  }
  const schemaOf = (path: string, method: string, status = '200') => compileWithAjv(doc.paths[path][method].responses[status].content['application/json'].schema);
  const ws = await ak.createWorkspace(OWNER);
  const created = await ak.call('/api/v1/agents', { method: 'POST', token: OWNER, json: { name: 'Documented', workspace_id: ws, is_master: true } });
  t.true(schemaOf('/api/v1/agents', 'post', '201')(created.body));
  t.true(schemaOf('/api/v1/agents/{agent_id}', 'get')((await ak.call(`/api/v1/agents/${created.body.id}`, { token: OWNER })).body));
  t.true(schemaOf('/api/v1/agents', 'get')((await ak.call('/api/v1/agents', { token: OWNER })).body));
});
