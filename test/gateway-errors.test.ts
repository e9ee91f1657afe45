import test from 'ava';
import { join } from 'node:path';
import { useKernel, api } from './helpers/kernel.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const fixture = useKernel(test, { label: 'gateway_errors', roots: [FIXTURES], env: { BODY_LIMIT: '1kb' } });
const base = () => fixture.kernel.apiUrl;

const owner = 'owner-token';

function assertProblem(t: any, res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  t.is(res.status, status, JSON.stringify(res.body));
  t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  t.is(res.body.status, status);
  t.is(res.body.code, code);
  t.is(typeof res.body.title, 'string');
  t.is(typeof res.body.detail, 'string');
  t.is(res.body.type, `/api/errors#${code.toLowerCase()}`);
  t.truthy(res.headers.get('x-request-id'));
}

test('a package route answers with a bearer token', async (t) => {
  const res = await api(base(), '/api/v1/greeter/hello', { token: owner });
  t.is(res.status, 200);
  t.deepEqual(res.body, { message: 'hello', version: 1 });
  t.truthy(res.headers.get('x-request-id'));
});

test('400 on malformed JSON', async (t) => {
  const res = await api(base(), '/api/v1/greeter/echo', { method: 'POST', token: owner, headers: { 'Content-Type': 'application/json' }, body: '{"name": ' });
  assertProblem(t, res, 400, 'MALFORMED_JSON');
});

test('401 without a token, with WWW-Authenticate: Bearer', async (t) => {
  const res = await api(base(), '/api/v1/greeter/hello');
  assertProblem(t, res, 401, 'UNAUTHORIZED');
  t.is(res.headers.get('www-authenticate'), 'Bearer');
  const bad = await api(base(), '/api/v1/greeter/hello', { token: 'nope' });
  assertProblem(t, bad, 401, 'UNAUTHORIZED');
  const malformed = await api(base(), '/api/v1/greeter/hello', { headers: { Authorization: 'Basic abc' } });
  assertProblem(t, malformed, 401, 'UNAUTHORIZED');
});

test('a public action needs no token and the identity reaches the action', async (t) => {
  t.deepEqual((await api(base(), '/api/v1/greeter/open')).body, { public: true });
  const me = await api(base(), '/api/v1/greeter/whoami', { token: 'member-token' });
  t.is(me.body.role, 'member');
});

test('403 for a member on an operator route', async (t) => {
  const res = await api(base(), '/api/v1/capability-packages', { token: 'member-token' });
  assertProblem(t, res, 403, 'FORBIDDEN');
});

test('404 on an unknown route, also outside /api/v1', async (t) => {
  assertProblem(t, await api(base(), '/api/v1/nothing/here', { token: owner }), 404, 'ROUTE_NOT_FOUND');
  assertProblem(t, await api(base(), '/nowhere'), 404, 'ROUTE_NOT_FOUND');
});

test('409 from a package error keeps its code, its title and data', async (t) => {
  const res = await api(base(), '/api/v1/greeter/conflict', { token: owner });
  assertProblem(t, res, 409, 'GREETER_ERR_BUSY');
  t.is(res.body.title, 'Greeter is busy', 'the title the package defined, although the package was loaded as its own module instance');
  t.is(res.body.retry_in, 3);
});

test('413 when the body is over the limit', async (t) => {
  const res = await api(base(), '/api/v1/greeter/echo', { method: 'POST', token: owner, json: { name: 'x'.repeat(5000) } });
  assertProblem(t, res, 413, 'PAYLOAD_TOO_LARGE');
});

test('415 when the body is not JSON', async (t) => {
  const res = await api(base(), '/api/v1/greeter/echo', { method: 'POST', token: owner, headers: { 'Content-Type': 'text/plain' }, body: 'name=x' });
  assertProblem(t, res, 415, 'UNSUPPORTED_MEDIA_TYPE');
});

test('422 lists every failing field, including unknown ones', async (t) => {
  const res = await api(base(), '/api/v1/greeter/echo', { method: 'POST', token: owner, json: { count: 9, extra: true } });
  assertProblem(t, res, 422, 'VALIDATION_FAILED');
  const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
  t.true(fields.includes('name'));
  t.true(fields.includes('count'));
  t.true(fields.includes('extra'), JSON.stringify(res.body.errors));
});

test('422 for a query value of the wrong type', async (t) => {
  const res = await api(base(), '/api/v1/greeter/slow?ms=abc', { token: owner });
  assertProblem(t, res, 422, 'VALIDATION_FAILED');
  t.deepEqual(res.body.errors.map((e: { field: string }) => e.field), ['ms']);
});

test('500 carries no stack or internal detail, and the request id', async (t) => {
  const res = await api(base(), '/api/v1/greeter/boom', { token: owner, headers: { 'X-Request-Id': 'req-abc-123' } });
  assertProblem(t, res, 500, 'INTERNAL_ERROR');
  t.is(res.body.request_id, 'req-abc-123');
  t.is(res.headers.get('x-request-id'), 'req-abc-123');
  t.false(res.text.includes('hunter2'));
  t.false(res.text.includes('at '));
});

test('415 when an upload route gets JSON instead of multipart; a real upload works', async (t) => {
  const res = await api(base(), '/api/v1/greeter/upload', { method: 'POST', token: owner, json: { file: 'x' } });
  assertProblem(t, res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  const form = new FormData();
  form.append('file', new Blob([Buffer.alloc(1234, 1)]), 'a.bin');
  const ok = await fetch(base() + '/api/v1/greeter/upload', { method: 'POST', headers: { Authorization: `Bearer ${owner}` }, body: form });
  t.is(ok.status, 200);
  t.deepEqual(await ok.json(), [{ filename: 'a.bin', size: 1234 }]);
});
