import test from 'ava';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { useKernel, api } from './helpers/kernel.ts';

/**
 * A call with no body or a JSON one takes the gateway's lean call path; the same call with an
 * Origin header (CORS is on here) goes through moleculer-web. Both must answer alike, so clients
 * cannot tell them apart.
 */
const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const ORIGIN = 'http://app.example.test';
const fixture = useKernel(test, { label: 'gateway_lean', roots: [FIXTURES], env: { CORS_ORIGINS: ORIGIN } });

const lean = (path: string, init: Parameters<typeof api>[2] = {}) => api(fixture.kernel.apiUrl, path, init);
const full = (path: string, init: Parameters<typeof api>[2] = {}) => api(fixture.kernel.apiUrl, path, { ...init, headers: { ...(init.headers as object), Origin: ORIGIN } });

/** what a client can see of a response, minus what differs per request */
function shape(res: Awaited<ReturnType<typeof api>>) {
  const body = res.body && typeof res.body === 'object' ? { ...res.body, request_id: undefined } : res.text;
  return { status: res.status, type: res.headers.get('content-type'), cache: res.headers.get('cache-control'), body };
}

type Init = Parameters<typeof api>[2];
const json = (body: string, type = 'application/json'): Init => ({ method: 'POST', body, headers: { 'Content-Type': type } });
const CASES: [string, string, Init?][] = [
  ['a result', '/api/v1/greeter/hello'],
  ['query parameters converted and validated', '/api/v1/greeter/slow?ms=1'],
  ['an unknown query parameter (422 naming it)', '/api/v1/greeter/slow?ms=1&extra=2'],
  ['a bad query value (422)', '/api/v1/greeter/slow?ms=abc'],
  ['a package error with its code (409)', '/api/v1/greeter/conflict'],
  ['an unexpected error (500 without the detail)', '/api/v1/greeter/boom'],
  ['the caller identity from the token', '/api/v1/greeter/whoami'],
  ['a route that does not exist (404)', '/api/v1/greeter/nothing-here'],
  ['a JSON body', '/api/v1/greeter/echo', json('{"name":"ada","count":2}')],
  ['a JSON body with a +json media type', '/api/v1/greeter/echo', json('{"name":"ada"}', 'application/vnd.api+json')],
  ['body and query merged', '/api/v1/greeter/echo?count=3', json('{"name":"ada"}')],
  ['malformed JSON (400)', '/api/v1/greeter/echo', json('{"name":')],
  ['a JSON body with a byte order mark', '/api/v1/greeter/echo', json('\ufeff{"name":"ada"}')],
  ['an explicit UTF-8 charset', '/api/v1/greeter/echo', json('{"name":"ådå"}', 'application/json; charset="UTF-8"')],
  ['a charset JSON may not have (415)', '/api/v1/greeter/echo', json('{"name":"ada"}', 'application/json; charset=latin1')],
  ['a gzip-compressed JSON body', '/api/v1/greeter/echo', { method: 'POST', body: gzipSync('{"name":"ada"}'), headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' } }],
  ['an unknown content encoding (415)', '/api/v1/greeter/echo', { method: 'POST', body: '{"name":"ada"}', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'snappy' } }],
  ['a body of white space (400)', '/api/v1/greeter/echo', json('   ')],
  ['a JSON null body (422)', '/api/v1/greeter/echo', json('null')],
  ['invalid UTF-8 bytes in a JSON string', '/api/v1/greeter/echo', { method: 'POST', body: Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), headers: { 'Content-Type': 'application/json' } }],
  ['a JSON body that is not an object (422 naming the missing field)', '/api/v1/greeter/echo', json('"just a string"')],
  ['an unknown body field (422 naming it)', '/api/v1/greeter/echo', json('{"name":"ada","admin":true}')],
  ['a field of the wrong type (422)', '/api/v1/greeter/echo', json('{"name":5}')],
  ['a body over the limit (413)', '/api/v1/greeter/echo', json(JSON.stringify({ name: 'x'.repeat(2_000_000) }))],
  ['another media type (415)', '/api/v1/greeter/echo', json('name=ada', 'text/plain')],
  ['a form body (moleculer-web both ways)', '/api/v1/greeter/echo', json('name=ada', 'application/x-www-form-urlencoded')],
  ['a POST to a GET route (404)', '/api/v1/greeter/hello', json('{}')],
  ['a JSON body to an upload route (415)', '/api/v1/greeter/upload', json('{}')],
  ['a path parameter', '/api/v1/greeter/named/ada%20lovelace'],
  ['a badly encoded path parameter (400)', '/api/v1/greeter/named/%ZZ'],
];

for (const [what, path, init] of CASES) {
  test(`lean and full paths answer alike: ${what}`, async (t) => {
    const a = await lean(path, { ...init, token: 'owner-token' });
    const b = await full(path, { ...init, token: 'owner-token' });
    // moleculer-web parses the body before its CORS step, so a body it refuses carries no CORS headers
    if (![400, 413].includes(b.status) && !/charset|encoding/.test(what)) t.is(b.headers.get('access-control-allow-origin'), ORIGIN, 'the Origin request went through the CORS-aware path');
    t.is(a.headers.get('access-control-allow-origin'), null);
    t.deepEqual(shape(a), shape(b));
  });
}

test('a +json body is parsed like application/json', async (t) => {
  const res = await lean('/api/v1/greeter/echo', { ...json('{"name":"ada"}', 'application/vnd.api+json'), token: 'owner-token' });
  t.is(res.status, 200);
  t.deepEqual(res.body, { name: 'ada' });
});

test('no token, a malformed token and an unknown token are 401 on the lean path', async (t) => {
  for (const init of [{}, { headers: { Authorization: 'Bearer' } }, { token: 'nobody-has-this-token' }]) {
    const res = await lean('/api/v1/greeter/hello', init);
    t.is(res.status, 401);
    t.regex(res.headers.get('content-type') ?? '', /problem\+json/);
  }
  t.is((await lean('/api/v1/greeter/open')).status, 200, 'an auth: false route needs no token');
});

test('a safe X-Request-Id is echoed; an unsafe one is replaced', async (t) => {
  const kept = await lean('/api/v1/greeter/hello', { token: 'owner-token', headers: { 'X-Request-Id': 'trace-123' } });
  t.is(kept.headers.get('x-request-id'), 'trace-123');
  const replaced = await lean('/api/v1/greeter/conflict', { token: 'owner-token', headers: { 'X-Request-Id': 'bad id\twith spaces' } });
  t.not(replaced.headers.get('x-request-id'), 'bad id\twith spaces');
  t.is(replaced.body.request_id, replaced.headers.get('x-request-id'));
});

test('internal actions are not reachable by GET, lean or not', async (t) => {
  for (const path of ['/api/v1/$node/list', '/api/v1/api/rest', '/api/v1/auth/authenticate?token=x']) {
    t.is((await lean(path, { token: 'owner-token' })).status, 404, path);
  }
});

/** how many requests moleculer-web's own `api.rest` action has handled */
function restCalls(): number {
  const metric = fixture.kernel.broker.metrics.getMetric('moleculer.request.total') as unknown as { values: Map<string, { labels: { action: string }; value: number }> };
  return [...metric.values.values()].filter((v) => v.labels.action === 'api.rest').reduce((n, v) => n + v.value, 0);
}

test.serial('a GET or a JSON POST does not go through api.rest; a call with an Origin or a form body does', async (t) => {
  const before = restCalls();
  t.is((await lean('/api/v1/greeter/hello', { token: 'owner-token' })).status, 200);
  t.is((await lean('/api/v1/greeter/echo', { method: 'POST', token: 'owner-token', json: { name: 'x' } })).status, 200);
  t.is(restCalls(), before, 'the lean path answered both');
  t.is((await full('/api/v1/greeter/hello', { token: 'owner-token' })).status, 200);
  t.is((await lean('/api/v1/greeter/echo', { ...json('name=x', 'application/x-www-form-urlencoded'), token: 'owner-token' })).status, 415, 'only JSON is accepted, but moleculer-web says so');
  t.is(restCalls(), before + 2);
});

test('a badly encoded path parameter is a 400 problem, with or without a token, and the server goes on serving', async (t) => {
  for (const token of [undefined, 'owner-token']) {
    const res = await lean('/api/v1/greeter/named/%ZZ', { token });
    t.is(res.status, 400);
    t.regex(res.headers.get('content-type') ?? '', /problem\+json/);
  }
  t.deepEqual((await lean('/api/v1/greeter/named/ada')).body, { name: 'ada' });
});

test('a chunked JSON body over the limit is 413 on the lean path, and one within it is read', async (t) => {
  const chunked = (text: string): RequestInit => {
    const bytes = Buffer.from(text);
    const body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 65_536) controller.enqueue(bytes.subarray(i, i + 65_536));
        controller.close();
      },
    });
    return { method: 'POST', body, headers: { 'Content-Type': 'application/json' }, duplex: 'half' } as RequestInit;
  };
  const big = await lean('/api/v1/greeter/echo', { ...chunked(JSON.stringify({ name: 'x'.repeat(2_000_000) })), token: 'owner-token' });
  t.is(big.status, 413);
  t.is(big.body.code, 'PAYLOAD_TOO_LARGE');
  const small = await lean('/api/v1/greeter/echo', { ...chunked(JSON.stringify({ name: 'ada' })), token: 'owner-token' });
  t.is(small.status, 200);
  t.deepEqual(small.body, (await lean('/api/v1/greeter/echo', { ...json('{"name":"ada"}'), token: 'owner-token' })).body);
});

test('moleculer-web\'s own alias lookup is the index, over the routes of the loaded packages', (t) => {
  const api = fixture.kernel.broker.getLocalService('api') as unknown as { aliasIndex: unknown; resolveAlias(url: string, method: string): { alias: { action: string }; params: unknown } | false };
  t.truthy(api.aliasIndex);
  const found = api.resolveAlias('/api/v1/greeter/named/ada', 'GET');
  t.is(found && found.alias.action, 'greeter.named');
  t.deepEqual(found && found.params, { name: 'ada' });
  t.is(api.resolveAlias('/api/v1/greeter/nothing-here', 'GET'), false);
});
