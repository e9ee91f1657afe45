import test from 'ava';
import { startModelsKernel, type ModelsKernel } from './helpers/models-kernel.ts';
import { compileWithAjv } from './openapi-ajv.ts';
import { validateOpenApi } from '../kernel/openapi/validate.ts';

let mk: ModelsKernel;
test.before(async () => {
  mk = await startModelsKernel('models_keys');
});
test.after.always(async () => {
  await mk?.close();
});

const OWNER = 'owner-token';
const ADMIN = 'admin-token';
const MEMBER = 'member-token';
const OTHER = 'other-token';
const SECRET = 'sk-live-THISISTHESECRETPART-0123456789';

// the tests of this file share entity e-1 and run one after another
test.serial('the first key of an entity becomes its default; create answers 201 with metadata only', async (t) => {
  const res = await mk.call('/api/v1/api-keys', {
    method: 'POST',
    token: OWNER,
    json: { name: 'Main OpenAI', provider: 'openai', api_key: SECRET, default_model: 'gpt-4o-mini', is_default: false },
  });
  t.is(res.status, 201, res.text);
  t.like(res.body, { name: 'Main OpenAI', provider: 'openai', default_model: 'gpt-4o-mini', is_default: true, created_by: 'u-owner', rotated_at: null, last_used_at: null });
  t.is(res.body.key_prefix, 'sk-liv…');
  t.regex(res.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/, 'a UUIDv7');
  t.false(res.text.includes('THISISTHESECRETPART'), 'the answer never holds the secret');
  t.false('api_key' in res.body);
  t.false('sealed_key' in res.body);
});

test.serial('list, get: metadata and prefixes, never the secret', async (t) => {
  const second = await mk.addKey(ADMIN, { name: 'Claude', provider: 'anthropic', api_key: 'sk-ant-api03-ANOTHERSECRET-abcdefghij', default_model: 'claude-test' });
  t.false(second.is_default, 'a later key is not the default unless asked');
  const list = await mk.call('/api/v1/api-keys', { token: MEMBER });
  t.is(list.status, 200, list.text);
  t.is(list.body.total, 2);
  t.like(list.body, { limit: 50, offset: 0 });
  t.deepEqual(list.body.items.map((k: { name: string }) => k.name), ['Claude', 'Main OpenAI'], 'newest first');
  t.deepEqual(list.body.items.map((k: { key_prefix: string }) => k.key_prefix), ['sk-ant…', 'sk-liv…']);
  t.false(list.text.includes('SECRET'), 'no secret in the list');
  for (const item of list.body.items) {
    t.deepEqual(Object.keys(item).sort(), ['base_url', 'created_at', 'created_by', 'default_model', 'id', 'is_default', 'key_prefix', 'last_used_at', 'name', 'provider', 'rotated_at', 'updated_at']);
  }
  const one = await mk.call(`/api/v1/api-keys/${second.id}`, { token: MEMBER });
  t.is(one.status, 200);
  t.deepEqual(one.body, second);
  const paged = await mk.call('/api/v1/api-keys?limit=1&offset=1', { token: OWNER });
  t.deepEqual(paged.body.items.map((k: { name: string }) => k.name), ['Main OpenAI']);
  t.is(paged.body.total, 2);
});

test.serial('is_default moves the default: exactly one default per entity', async (t) => {
  const keys = (await mk.call('/api/v1/api-keys', { token: OWNER })).body.items;
  const claude = keys.find((k: { name: string }) => k.name === 'Claude');
  const moved = await mk.call(`/api/v1/api-keys/${claude.id}`, { method: 'PUT', token: OWNER, json: { is_default: true } });
  t.is(moved.status, 200, moved.text);
  t.true(moved.body.is_default);
  const defaults = (await mk.call('/api/v1/api-keys', { token: OWNER })).body.items.filter((k: { is_default: boolean }) => k.is_default);
  t.deepEqual(defaults.map((k: { id: string }) => k.id), [claude.id]);

  // a new key created as default takes it over in the same transaction
  const third = await mk.addKey(OWNER, { name: 'Third', is_default: true });
  t.true(third.is_default);
  const after = (await mk.call('/api/v1/api-keys', { token: OWNER })).body.items;
  t.deepEqual(after.filter((k: { is_default: boolean }) => k.is_default).map((k: { id: string }) => k.id), [third.id]);

  // the database refuses a second default whatever the code does
  const db = mk.kernel.stores!.db;
  const refused = await t.throwsAsync(db.query("UPDATE model_api_keys SET is_default = true WHERE entity_id = 'e-1'"));
  t.is((refused as { original?: { constraint?: string } }).original?.constraint, 'model_api_keys_one_default');
});

test.serial('deleting the default makes the oldest remaining key the default; unsetting it leaves none', async (t) => {
  const before = (await mk.call('/api/v1/api-keys', { token: OWNER })).body.items;
  const current = before.find((k: { is_default: boolean }) => k.is_default);
  const del = await mk.call(`/api/v1/api-keys/${current.id}`, { method: 'DELETE', token: OWNER });
  t.is(del.status, 204, del.text);
  t.is(del.text, '');
  t.is((await mk.call(`/api/v1/api-keys/${current.id}`, { token: OWNER })).status, 404);
  const after = (await mk.call('/api/v1/api-keys', { token: OWNER })).body.items;
  const oldest = after.at(-1);
  t.is(oldest.name, 'Main OpenAI');
  t.deepEqual(after.filter((k: { is_default: boolean }) => k.is_default).map((k: { id: string }) => k.id), [oldest.id]);

  const unset = await mk.call(`/api/v1/api-keys/${oldest.id}`, { method: 'PUT', token: OWNER, json: { is_default: false } });
  t.false(unset.body.is_default);
  t.deepEqual((await mk.call('/api/v1/api-keys', { token: OWNER })).body.items.filter((k: { is_default: boolean }) => k.is_default), []);
  // the next key created while there is no default becomes it
  const next = await mk.addKey(OWNER, { name: 'Fourth', is_default: false });
  t.true(next.is_default);
});

test.serial('update changes name and default model, not the key; rotate replaces the key and stamps rotated_at', async (t) => {
  const key = await mk.addKey(OWNER, { name: 'Rotating', api_key: 'sk-first-aaaaaaaaaaaaaaaaaaaa' });
  const renamed = await mk.call(`/api/v1/api-keys/${key.id}`, { method: 'PUT', token: ADMIN, json: { name: '  Renamed  ', default_model: 'gpt-other' } });
  t.is(renamed.status, 200, renamed.text);
  t.like(renamed.body, { name: 'Renamed', default_model: 'gpt-other', key_prefix: 'sk-fir…', rotated_at: null });
  const withKey = await mk.call(`/api/v1/api-keys/${key.id}`, { method: 'PUT', token: OWNER, json: { api_key: 'sk-sneaky-bbbbbbbbbbbbbbbbb' } });
  t.is(withKey.status, 422);
  t.true(withKey.body.errors.some((e: { field: string }) => e.field === 'api_key'));
  const withProvider = await mk.call(`/api/v1/api-keys/${key.id}`, { method: 'PUT', token: OWNER, json: { provider: 'anthropic' } });
  t.is(withProvider.status, 422);

  const rotated = await mk.call(`/api/v1/api-keys/${key.id}/rotate`, { method: 'POST', token: OWNER, json: { api_key: 'xk-second-cccccccccccccccccccc' } });
  t.is(rotated.status, 200, rotated.text);
  t.like(rotated.body, { id: key.id, name: 'Renamed', default_model: 'gpt-other', key_prefix: 'xk-sec…', is_default: key.is_default });
  t.truthy(rotated.body.rotated_at);
  t.false(rotated.text.includes('cccccccc'));
});

test('key_prefix is 6 characters and never more than a third of the key', async (t) => {
  for (const [apiKey, prefix] of [['abcdefghijklmnopqrstuvwxyz', 'abcdef…'], ['abcdefghijkl', 'abcd…'], ['abcdefgh', 'ab…'], ['ab', '…']] as const) {
    const res = await mk.call('/api/v1/api-keys', { method: 'POST', token: OTHER, json: { name: 'p', provider: 'openai', api_key: apiKey, default_model: 'm' } });
    t.is(res.status, 201, res.text);
    t.is(res.body.key_prefix, prefix, apiKey);
  }
});

test("another entity's key is 404 on every route, and stays untouched", async (t) => {
  const mine = await mk.addKey(OWNER, { name: 'Private key name' });
  const routes: [string, string, unknown?][] = [
    ['GET', ''],
    ['PUT', '', { name: 'Taken over' }],
    ['POST', '/rotate', { api_key: 'sk-attacker-000000000000' }],
    ['DELETE', ''],
  ];
  for (const [method, suffix, json] of routes) {
    const res = await mk.call(`/api/v1/api-keys/${mine.id}${suffix}`, { method, token: OTHER, json });
    t.is(res.status, 404, `${method} ${suffix}: ${res.text}`);
    t.is(res.body.code, 'NOT_FOUND');
    t.false(res.text.includes('Private key name'));
  }
  const theirs = await mk.call('/api/v1/api-keys?limit=200', { token: OTHER });
  t.false(theirs.body.items.some((k: { id: string }) => k.id === mine.id), "the list shows only the caller's entity");
  const after = await mk.call(`/api/v1/api-keys/${mine.id}`, { token: OWNER });
  t.deepEqual(after.body, mine);
  // a non-UUID id is the same 404
  t.is((await mk.call('/api/v1/api-keys/not-a-uuid', { token: OWNER })).status, 404);
});

test('members read but cannot write (403); no token is 401', async (t) => {
  const key = await mk.addKey(OWNER, { name: 'Guarded' });
  const writes: [string, string, unknown?][] = [
    ['POST', '/api/v1/api-keys', { name: 'x', provider: 'openai', api_key: 'sk-member-00000000000', default_model: 'm' }],
    ['PUT', `/api/v1/api-keys/${key.id}`, { name: 'x' }],
    ['POST', `/api/v1/api-keys/${key.id}/rotate`, { api_key: 'sk-member-00000000000' }],
    ['DELETE', `/api/v1/api-keys/${key.id}`],
  ];
  for (const [method, path, json] of writes) {
    const res = await mk.call(path, { method, token: MEMBER, json });
    t.is(res.status, 403, `${method} ${path}: ${res.text}`);
    t.is(res.body.code, 'FORBIDDEN');
  }
  t.is((await mk.call(`/api/v1/api-keys/${key.id}`, { token: MEMBER })).status, 200);
  t.deepEqual((await mk.call(`/api/v1/api-keys/${key.id}`, { token: OWNER })).body, key, 'nothing changed');
  t.is((await mk.call('/api/v1/api-keys')).status, 401);
});

test('bad input is a 422 naming the field, never a 500, and stores nothing', async (t) => {
  const valid = { name: 'Bad input', provider: 'openai', api_key: 'sk-valid-000000000000', default_model: 'gpt-test' };
  const cases: [string, Record<string, unknown>, string][] = [
    ['missing name', { ...valid, name: undefined }, 'name'],
    ['empty name', { ...valid, name: '   ' }, 'name'],
    ['over-long name', { ...valid, name: 'n'.repeat(121) }, 'name'],
    ['name not a string', { ...valid, name: 42 }, 'name'],
    ['missing provider', { ...valid, provider: undefined }, 'provider'],
    ['unknown provider', { ...valid, provider: 'gemini' }, 'provider'],
    ['missing api_key', { ...valid, api_key: undefined }, 'api_key'],
    ['empty api_key', { ...valid, api_key: '' }, 'api_key'],
    ['blank api_key', { ...valid, api_key: '   ' }, 'api_key'],
    ['api_key with a space inside', { ...valid, api_key: 'sk-has space' }, 'api_key'],
    ['api_key with non-ASCII', { ...valid, api_key: 'sk-ключ-000000' }, 'api_key'],
    ['over-long api_key', { ...valid, api_key: 'k'.repeat(4097) }, 'api_key'],
    ['api_key not a string', { ...valid, api_key: 12345678 }, 'api_key'],
    ['missing default_model', { ...valid, default_model: undefined }, 'default_model'],
    ['over-long default_model', { ...valid, default_model: 'm'.repeat(201) }, 'default_model'],
    ['is_default not a boolean', { ...valid, is_default: 'maybe' }, 'is_default'],
    ['an unknown field', { ...valid, base_url: 'http://evil.test' }, 'base_url'],
    ['a NUL in the name', { ...valid, name: 'a\u0000b' }, 'name'],
    ['a line break in the name', { ...valid, name: 'a\nb' }, 'name'],
  ];
  for (const [label, json, field] of cases) {
    const res = await mk.call('/api/v1/api-keys', { method: 'POST', token: OWNER, json });
    t.is(res.status, 422, `${label}: ${res.text}`);
    t.is(res.body.code, 'VALIDATION_FAILED', label);
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), `${label}: ${JSON.stringify(res.body.errors)}`);
    t.false(res.text.includes('sk-valid') || res.text.includes('ключ'), `${label}: the key is not echoed`);
  }
  const key = await mk.addKey(OWNER, { name: 'Target' });
  const updates: [string, string, string, Record<string, unknown>, string][] = [
    ['PUT over-long name', 'PUT', '', { name: 'n'.repeat(121) }, 'name'],
    ['PUT is_default a number', 'PUT', '', { is_default: 'sometimes' }, 'is_default'],
    ['PUT empty default_model', 'PUT', '', { default_model: '' }, 'default_model'],
    ['rotate without api_key', 'POST', '/rotate', {}, 'api_key'],
    ['rotate with an empty api_key', 'POST', '/rotate', { api_key: '' }, 'api_key'],
    ['rotate with an object', 'POST', '/rotate', { api_key: { value: 'x' } }, 'api_key'],
  ];
  for (const [label, method, suffix, json, field] of updates) {
    const res = await mk.call(`/api/v1/api-keys/${key.id}${suffix}`, { method, token: OWNER, json });
    t.is(res.status, 422, `${label}: ${res.text}`);
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), `${label}: ${JSON.stringify(res.body.errors)}`);
  }
  const bodyNotJson = await mk.call('/api/v1/api-keys', { method: 'POST', token: OWNER, body: '{"name":', headers: { 'Content-Type': 'application/json' } });
  t.is(bodyNotJson.status, 400);
  const paging = await mk.call('/api/v1/api-keys?limit=500', { token: OWNER });
  t.is(paging.status, 422);
  const stored = (await mk.call('/api/v1/api-keys?limit=200', { token: OWNER })).body.items;
  t.false(stored.some((k: { name: string }) => k.name === 'Bad input'), 'no bad request stored a key');
});

test('the routes are in a valid OpenAPI document, and answers match their schemas', async (t) => {
  const doc = (await mk.call('/api/openapi.json')).body;
  await t.notThrowsAsync(validateOpenApi(doc));
  const expected: [string, string[]][] = [
    ['/api/v1/api-keys', ['get', 'post']],
    ['/api/v1/api-keys/{id}', ['get', 'put', 'delete']],
    ['/api/v1/api-keys/{id}/rotate', ['post']],
  ];
  for (const [path, methods] of expected) {
    for (const method of methods) t.truthy(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`);
  }
  t.falsy(Object.keys(doc.paths).find((p) => /chat|generate|usageSummary/i.test(p)), 'the internal actions have no route');
  const postBody = doc.paths['/api/v1/api-keys'].post.requestBody.content['application/json'].schema;
  t.deepEqual([...postBody.required].sort(), ['api_key', 'default_model', 'name', 'provider']);
  t.deepEqual(postBody.properties.provider.enum, ['openai', 'anthropic', 'openai_compatible']);

  const schemaOf = (path: string, method: string, status = '200') => compileWithAjv(doc.paths[path][method].responses[status].content['application/json'].schema);
  const created = await mk.call('/api/v1/api-keys', { method: 'POST', token: OWNER, json: { name: 'Doc', provider: 'anthropic', api_key: 'sk-ant-doc-00000000000', default_model: 'claude-test' } });
  t.true(schemaOf('/api/v1/api-keys', 'post', '201')(created.body), 'create');
  t.true(schemaOf('/api/v1/api-keys', 'get')((await mk.call('/api/v1/api-keys', { token: OWNER })).body), 'list');
  t.true(schemaOf('/api/v1/api-keys/{id}', 'get')((await mk.call(`/api/v1/api-keys/${created.body.id}`, { token: OWNER })).body), 'get');
  const rotated = await mk.call(`/api/v1/api-keys/${created.body.id}/rotate`, { method: 'POST', token: OWNER, json: { api_key: 'sk-ant-doc-11111111111' } });
  t.true(schemaOf('/api/v1/api-keys/{id}/rotate', 'post')(rotated.body), 'rotate');
});

test('concurrent creates and default moves leave exactly one default (PostgreSQL)', async (t) => {
  const created = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      mk.call('/api/v1/api-keys', { method: 'POST', token: OTHER, json: { name: `race ${i}`, provider: 'anthropic', api_key: `sk-race-${i}-0000000000`, default_model: 'm', is_default: i % 2 === 0 } }),
    ),
  );
  t.deepEqual([...new Set(created.map((r) => r.status))], [201], created.map((r) => r.text).join('\n'));
  const moves = await Promise.all(created.map((r) => mk.call(`/api/v1/api-keys/${r.body.id}`, { method: 'PUT', token: OTHER, json: { is_default: true } })));
  t.deepEqual([...new Set(moves.map((r) => r.status))], [200]);
  const all = (await mk.call('/api/v1/api-keys?limit=200', { token: OTHER })).body.items;
  t.is(all.filter((k: { is_default: boolean }) => k.is_default).length, 1);
});
