import test from 'ava';
import { startWorkflowsKernel, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';
import { validateOpenApi } from '../../../kernel/openapi/validate.ts';

let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('sandbox_route', { nodes: [], links: ['sandbox/runner'], env: { SANDBOX_MEMORY_MB: '32', SANDBOX_MAX_INPUT_BYTES: '65536', SANDBOX_MAX_OUTPUT_BYTES: '65536', SANDBOX_TIMEOUT_SECONDS: '30' } });
});
test.after.always(async () => k?.close());

const sandbox = (json: unknown, token = 'owner-token') => k.call('/api/v1/workspaces/sandbox', { method: 'POST', token, json });
const fields = (body: any): string[] => (body?.errors ?? []).map((e: { field: string }) => e.field);

test('an owner or admin runs a snippet: its result, console lines and duration', async (t) => {
  for (const token of ['owner-token', 'admin-token']) {
    const res = await sandbox({ code: 'console.log("hi", input.n); return { n: input.n + 1 };', input: { n: 1 } }, token);
    t.is(res.status, 200, res.text);
    t.like(res.body, { language: 'javascript', result: { n: 2 }, logs: ['hi 1'] });
    t.is(typeof res.body.duration_ms, 'number');
  }
});

test('a member is refused 403, no token 401, and the workspace routes beside it still answer', async (t) => {
  const member = await sandbox({ code: 'return 1' }, 'member-token');
  t.is(member.status, 403);
  t.is(member.body.code, 'FORBIDDEN');
  const anonymous = await k.call('/api/v1/workspaces/sandbox', { method: 'POST', json: { code: 'return 1' } });
  t.is(anonymous.status, 401);
  const list = await k.call('/api/v1/workspaces', { token: 'member-token' });
  t.is(list.status, 200);
});

test('malformed requests are 422 naming the field; nothing runs', async (t) => {
  for (const [body, field] of [
    [{}, 'code'],
    [{ code: '' }, 'code'],
    [{ code: 42 }, 'code'],
    [{ code: 'x'.repeat(100_001) }, 'code'],
    [{ code: 'return 1', language: 'cobol' }, 'language'],
    [{ code: 'return 1', timeout: 0 }, 'timeout'],
    [{ code: 'return 1', timeout: 'soon' }, 'timeout'],
    [{ code: 'return 1', memory: 4096 }, 'memory'],
  ] as const) {
    const res = await sandbox(body);
    t.is(res.status, 422, JSON.stringify(body));
    t.is(res.body.code, 'VALIDATION_FAILED');
    t.true(fields(res.body).includes(field), `${field}: ${res.text}`);
  }
});

test('a syntax error is 422 SANDBOX_ERR_SYNTAX naming code, line and column', async (t) => {
  const res = await sandbox({ code: 'let a = 1;\nlet b = ;' });
  t.is(res.status, 422);
  t.like(res.body, { code: 'SANDBOX_ERR_SYNTAX', field: 'code', line: 2 });
  t.is(res.headers.get('content-type')?.split(';')[0], 'application/problem+json');
});

test('an infinite loop is 422 SANDBOX_ERR_TIME_LIMIT at the requested timeout', async (t) => {
  const res = await sandbox({ code: 'while (true) {}', timeout: 0.3 });
  t.is(res.status, 422);
  t.like(res.body, { code: 'SANDBOX_ERR_TIME_LIMIT', limit_ms: 300 });
});

test('a memory bomb is 422 SANDBOX_ERR_MEMORY_LIMIT', async (t) => {
  const res = await sandbox({ code: 'const a = []; for (;;) a.push(new Array(100000).fill(1.5));' });
  t.is(res.status, 422);
  t.like(res.body, { code: 'SANDBOX_ERR_MEMORY_LIMIT', limit_mb: 32 });
});

test('the constructor escape reaches no process: a runtime error, no stack of the host', async (t) => {
  const res = await sandbox({ code: "return this.constructor.constructor('return process')().mainModule.require('child_process').execSync('id').toString()" });
  t.is(res.status, 422);
  t.is(res.body.code, 'SANDBOX_ERR_RUNTIME');
  t.regex(res.body.detail, /process is not defined/);
  t.false(res.text.includes('/work/'), 'no host path leaks');
});

test('a huge output is 422 SANDBOX_ERR_OUTPUT_TOO_LARGE; a huge input is refused naming input', async (t) => {
  const out = await sandbox({ code: 'return Array.from({ length: 100000 }, (_, i) => i);' });
  t.is(out.status, 422);
  t.like(out.body, { code: 'SANDBOX_ERR_OUTPUT_TOO_LARGE', limit_bytes: 65536 });
  const input = await sandbox({ code: 'return 1', input: { blob: 'x'.repeat(70_000) } });
  t.is(input.status, 422);
  t.like(input.body, { code: 'SANDBOX_ERR_INPUT_TOO_LARGE', field: 'input' });
});

test('python without a Docker engine is 422 SANDBOX_ERR_LANGUAGE_UNAVAILABLE naming language', async (t) => {
  const res = await sandbox({ language: 'python', code: 'result = 1' });
  t.is(res.status, 422);
  t.like(res.body, { code: 'SANDBOX_ERR_LANGUAGE_UNAVAILABLE', field: 'language', available: ['javascript'] });
});

test('the route is in the OpenAPI document with its body and answer', async (t) => {
  const doc = await k.call('/api/openapi.json');
  const op = doc.body.paths['/api/v1/workspaces/sandbox']?.post;
  t.truthy(op);
  t.truthy(op.requestBody);
  t.truthy(op.responses['200']);
  await t.notThrowsAsync(validateOpenApi(doc.body));
});
