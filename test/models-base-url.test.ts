import test from 'ava';
import { createServer } from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { AddressPolicy } from '../kernel/net/address-policy.ts';
import { guardedFetch } from '../kernel/net/guarded-fetch.ts';
import { startModelsKernel, type ModelsKernel } from './helpers/models-kernel.ts';

const messages = [{ role: 'user' as const, content: 'hi' }];
const HINT = { who: 'test', setting: 'TEST_ALLOW' };
/** both kernels open the same sealed keys (a key row is copied from one to the other below) */
const SHARED_SECRET = 'd'.repeat(64);
let closed: ModelsKernel;
let open: ModelsKernel;

test.before(async () => {
  closed = await startModelsKernel('models_base_url_closed', { env: { SECRET_KEY: SHARED_SECRET } });
  // the same provider, reached through a kernel whose operator allows loopback for key base URLs
  open = await startModelsKernel('models_base_url_open', { env: { MODEL_BASE_URL_ALLOW: '127.0.0.1/32', SECRET_KEY: SHARED_SECRET } });
});
test.after.always(async () => {
  await closed?.close();
  await open?.close();
});

const create = (mk: ModelsKernel, body: Record<string, unknown>, token = 'owner-token') =>
  mk.call('/api/v1/api-keys', { method: 'POST', token, json: { name: 'K', provider: 'openai_compatible', api_key: 'sk-base-url-000000000', default_model: 'm', ...body } });

test.serial('without the allow-list a base_url in loopback, link-local (metadata) or private ranges is refused with 422 naming base_url', async (t) => {
  for (const url of ['http://127.0.0.1:4010/v1', 'http://169.254.169.254/latest', 'http://10.1.2.3/v1', 'http://[::1]:8080/v1', 'http://localhost:11434/v1', 'https://192.168.1.10']) {
    const res = await create(closed, { base_url: url });
    t.is(res.status, 422, url);
    t.is(res.body.code, 'MODELS_ERR_BASE_URL_BLOCKED', url);
    t.is(res.body.field, 'base_url', url);
    t.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['base_url'], url);
    t.regex(res.body.detail, /MODEL_BASE_URL_ALLOW/, url);
  }
  const list = await closed.call('/api/v1/api-keys', { token: 'owner-token' });
  t.is(list.body.total, 0, 'nothing was stored');
});

test.serial('a base_url that is not http(s), carries credentials or a query, or is missing for openai_compatible is 422 VALIDATION_FAILED', async (t) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ base_url: 'ftp://example.com/v1' }, 'ftp'],
    [{ base_url: 'not a url' }, 'absolute'],
    [{ base_url: 'https://user:pw@example.com/v1' }, 'credentials'],
    [{ base_url: 'https://example.com/v1?x=1' }, 'query'],
    [{ base_url: '' }, ''],
    [{ base_url: 42 }, ''],
    [{}, 'required'],
  ];
  for (const [body, words] of cases) {
    const res = await create(closed, body);
    t.is(res.status, 422, JSON.stringify(body));
    t.is(res.body.code, 'VALIDATION_FAILED', JSON.stringify(body));
    const error = res.body.errors.find((e: { field: string }) => e.field === 'base_url');
    t.truthy(error, JSON.stringify(res.body));
    if (words) t.regex(error.message, new RegExp(words), JSON.stringify(body));
  }
});

test.serial('with MODEL_BASE_URL_ALLOW the key is accepted, shown in metadata, and the call goes there through the guarded fetch', async (t) => {
  const res = await create(open, { base_url: `${open.provider.url}/v1/` });
  t.is(res.status, 201, res.text);
  t.is(res.body.base_url, `${open.provider.url}/v1`, 'stored without the trailing slash');
  open.provider.replies.push({ chunks: ['through', ' the guard'] });
  const lines = await open.generateStream({ messages, api_key_id: res.body.id });
  t.like(lines.at(-1), { type: 'done', text: 'through the guard', provider: 'openai_compatible' });
  t.is(open.provider.requests.at(-1)!.path, '/v1/chat/completions');

  // PUT: base_url changes are checked the same way; null is refused for openai_compatible
  const blocked = await open.call(`/api/v1/api-keys/${res.body.id}`, { method: 'PUT', token: 'owner-token', json: { base_url: 'http://169.254.169.254/v1' } });
  t.is(blocked.status, 422);
  t.is(blocked.body.code, 'MODELS_ERR_BASE_URL_BLOCKED');
  const cleared = await open.call(`/api/v1/api-keys/${res.body.id}`, { method: 'PUT', token: 'owner-token', json: { base_url: null } });
  t.is(cleared.status, 422);
  t.is(cleared.body.errors[0].field, 'base_url');

  // an openai key may carry its own base_url, and drop it again
  const openaiKey = await open.addKey('owner-token', { name: 'Own URL', provider: 'openai', base_url: `${open.provider.url}/v1` });
  t.is(openaiKey.base_url, `${open.provider.url}/v1`);
  const reset = await open.call(`/api/v1/api-keys/${openaiKey.id}`, { method: 'PUT', token: 'owner-token', json: { base_url: null } });
  t.is(reset.status, 200);
  t.is(reset.body.base_url, null);
});

test.serial('at call time the guard refuses a stored base_url the deployment refuses (checked again on every call)', async (t) => {
  // a key saved while the address was allowed (here: written past the save check), then called on a node that refuses it
  const res = await create(open, { base_url: `${closed.provider.url}/v1`, name: 'Moved' });
  t.is(res.status, 201);
  const row = (await open.kernel.stores!.db.query('SELECT * FROM model_api_keys WHERE id = $1', { bind: [res.body.id], plain: true })) as Record<string, unknown>;
  const columns = Object.keys(row);
  await closed.kernel.stores!.db.query(`INSERT INTO model_api_keys (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, { bind: columns.map((c) => row[c]) });
  const seen = closed.provider.requests.length;
  const err = await t.throwsAsync(closed.generate({ messages, api_key_id: res.body.id }));
  t.like(err, { code: 422, type: 'MODELS_ERR_BASE_URL_BLOCKED', data: { field: 'base_url', attempts: 1 } });
  t.regex(err!.message, /127\.0\.0\.1 is a loopback address/);
  const lines = await closed.generateStream({ messages, api_key_id: res.body.id });
  t.like(lines.at(-1), { type: 'error', status: 422, code: 'MODELS_ERR_BASE_URL_BLOCKED' });
  t.is(closed.provider.requests.length, seen, 'the provider was never reached');
});

test.serial("another entity's key is 404 for its metadata and its calls", async (t) => {
  const key = (await create(open, { base_url: `${open.provider.url}/v1`, name: 'Mine' })).body;
  t.is((await open.call(`/api/v1/api-keys/${key.id}`, { token: 'other-token' })).status, 404);
  t.like(await t.throwsAsync(open.generate({ messages, api_key_id: key.id }, { id: 'u-other', entity_id: 'e-2', role: 'owner' })), { code: 404, type: 'NOT_FOUND' });
});

test('guardedFetch streams the body as it arrives and refuses what the policy refuses, by address and by name', async (t) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('first\n');
    void released.then(() => res.end('second\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;

  const allowed = guardedFetch({ policy: new AddressPolicy(['127.0.0.1']), hint: HINT });
  const res = await allowed(`http://127.0.0.1:${port}/stream`, { method: 'POST', body: '{}' });
  const reader = res.body!.getReader();
  const first = await reader.read(); // arrives while the server still holds the rest back
  t.is(new TextDecoder().decode(first.value), 'first\n');
  release();
  let rest = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  t.is(rest, 'second\n');

  const refusing = guardedFetch({ policy: new AddressPolicy([]), hint: HINT });
  const byAddress = await t.throwsAsync(refusing(`http://127.0.0.1:${port}/x`));
  t.is(byAddress!.name, 'BlockedTargetError');
  t.regex(byAddress!.message, /loopback.*TEST_ALLOW/);
  const resolveToMetadata = ((_host: string, _opts: unknown, cb: (err: null, addresses: LookupAddress[]) => void) => cb(null, [{ address: '169.254.169.254', family: 4 }])) as never;
  const rebinding = guardedFetch({ policy: new AddressPolicy([]), hint: HINT, resolve: resolveToMetadata });
  const byName = await t.throwsAsync(rebinding('http://provider.example/v1/chat/completions', { method: 'POST', body: '{}' }));
  t.regex(String(byName!.message) + String((byName as { cause?: Error }).cause?.message ?? ''), /provider\.example resolves to 169\.254\.169\.254 is a link-local/);
});
