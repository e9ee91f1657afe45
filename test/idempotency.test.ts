import test from 'ava';
import { QueryTypes } from 'sequelize';
import { useTasksKernel } from './helpers/tasks-kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { IdempotencyProbe } from './helpers/idempotency-probe.ts';

const ORIGIN = 'http://app.test';
const probe = new IdempotencyProbe();
const fixture = useTasksKernel(test, 'idempotency', { CORS_ORIGINS: ORIGIN }, async (tk) => {
  tk.kernel.broker.createService(probe.service());
  // moleculer-web rebuilds its aliases a little after a service appears
  await eventually(async () => (await tk.call('/api/v1/idem-probe', { method: 'POST', token: 'owner-token', json: { n: 0 } })).status === 201);
  probe.effects = 0;
});
const owner = 'owner-token';

async function count(sql: string, replacements: Record<string, unknown>): Promise<number> {
  const [row] = await fixture.tk.kernel.stores!.db.query<{ n: string }>(sql, { replacements, type: QueryTypes.SELECT });
  return Number(row.n);
}
const tasksTitled = (title: string) => count('SELECT count(*) AS n FROM tasks WHERE title = :title', { title });
const keysNamed = (key: string) => count('SELECT count(*) AS n FROM idempotency_keys WHERE key = :key', { key });

function post(path: string, json: unknown, key: string | undefined, extra: Record<string, string> = {}, token = owner) {
  return fixture.tk.call(path, { method: 'POST', token, json, headers: { ...(key === undefined ? {} : { 'Idempotency-Key': key }), ...extra } });
}

// the lean path (no Origin) and moleculer-web's own (a CORS request) must answer alike
for (const [path, extra] of [['lean', {}], ['moleculer-web', { Origin: ORIGIN }]] as const) {
  test(`${path}: the same key and body replay the first 201 with its Location, and create once`, async (t) => {
    const title = `replayed ${path}`;
    const key = `"replay-${path}"`;
    const first = await post('/api/v1/tasks', { title }, key, extra);
    t.is(first.status, 201, first.text);
    t.is(first.headers.get('Location'), `/api/v1/tasks/${first.body.id}`);
    t.is(first.headers.get('Idempotent-Replayed'), null);
    const again = await post('/api/v1/tasks', { title }, key, extra);
    t.is(again.status, 201, again.text);
    t.is(again.headers.get('Idempotent-Replayed'), 'true');
    t.is(again.headers.get('Location'), first.headers.get('Location'));
    t.deepEqual(again.body, first.body);
    t.is(await tasksTitled(title), 1, 'no second task');
    if ('Origin' in extra) t.is(again.headers.get('Access-Control-Allow-Origin'), ORIGIN, 'a replay keeps the CORS headers');
  });

  test(`${path}: the same key with another body is a 422 and stores nothing`, async (t) => {
    const key = `reused-${path}`;
    t.is((await post('/api/v1/tasks', { title: `first ${path}` }, key, extra)).status, 201);
    const other = await post('/api/v1/tasks', { title: `second ${path}` }, key, extra);
    t.is(other.status, 422, other.text);
    t.is(other.body.code, 'IDEMPOTENCY_KEY_REUSED');
    t.is(await tasksTitled(`second ${path}`), 0);
    const elsewhere = await post('/api/v1/tasks/categories', { name: `first ${path}` }, key, extra);
    t.is(elsewhere.status, 422, 'the same key on another route is another request');
  });
}

test('a duplicate while the first is in flight is a 409; the first then answers once and is replayed', async (t) => {
  const held = probe.hold();
  const effectsBefore = probe.effects;
  const first = post('/api/v1/idem-probe', { n: 7 }, 'held');
  await held.running;
  const duplicate = await post('/api/v1/idem-probe', { n: 7 }, 'held');
  t.is(duplicate.status, 409, duplicate.text);
  t.is(duplicate.body.code, 'IDEMPOTENCY_KEY_IN_FLIGHT');
  held.release();
  const answered = await first;
  t.is(answered.status, 201, answered.text);
  const replay = await post('/api/v1/idem-probe', { n: 7 }, 'held');
  t.is(replay.status, 201);
  t.is(replay.headers.get('Idempotent-Replayed'), 'true');
  t.deepEqual(replay.body, answered.body);
  t.is(probe.effects - effectsBefore, 1, 'the action ran once');
});

test('keys are scoped per entity: another entity with the same key and body gets its own task', async (t) => {
  const title = 'per entity';
  const mine = await post('/api/v1/tasks', { title }, 'shared-key');
  const theirs = await post('/api/v1/tasks', { title }, 'shared-key', {}, 'other-token');
  t.is(mine.status, 201);
  t.is(theirs.status, 201);
  t.is(theirs.headers.get('Idempotent-Replayed'), null);
  t.not(theirs.body.id, mine.body.id);
  t.is(await tasksTitled(title), 2);
});

test('a failed request frees its key: nothing is kept and the corrected request runs', async (t) => {
  const bad = await post('/api/v1/tasks', { title: '' }, 'fix-me');
  t.is(bad.status, 422, bad.text);
  t.is(bad.body.code, 'VALIDATION_FAILED');
  t.is(await keysNamed('fix-me'), 0);
  const ok = await post('/api/v1/tasks', { title: '' }, 'fix-me');
  t.is(ok.status, 422, 'the same failing request is validated again, not replayed');
  t.is(ok.headers.get('Idempotent-Replayed'), null);
});

test('after its lifetime a key is free again', async (t) => {
  const title = 'expired key';
  t.is((await post('/api/v1/tasks', { title }, 'old-key')).status, 201);
  await fixture.tk.kernel.stores!.db.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'old-key'");
  const again = await post('/api/v1/tasks', { title }, 'old-key');
  t.is(again.status, 201);
  t.is(again.headers.get('Idempotent-Replayed'), null);
  t.is(await tasksTitled(title), 2);
});

test('a bad Idempotency-Key header is a 400 naming it, and nothing is created', async (t) => {
  for (const header of ['"unterminated', '"a" , "b"', 'has space', '""', `"${'x'.repeat(256)}"`, '"tab\there"']) {
    const res = await post('/api/v1/tasks', { title: 'bad key' }, header);
    t.is(res.status, 400, `${header}: ${res.text}`);
    t.is(res.body.code, 'IDEMPOTENCY_KEY_INVALID');
    t.is(res.body.errors[0].field, 'Idempotency-Key');
  }
  t.is(await tasksTitled('bad key'), 0);
});

test('routes that take no key ignore it', async (t) => {
  const list = await fixture.tk.call('/api/v1/tasks', { token: owner, headers: { 'Idempotency-Key': 'has space' } });
  t.is(list.status, 200, 'a GET neither checks nor keeps a key');
  const task = await fixture.tk.createTask(owner, { title: 'moved twice' });
  for (let i = 0; i < 2; i++) {
    const moved = await post(`/api/v1/tasks/${task.id}/move`, { status: i === 0 ? 'in_progress' : 'review' }, 'move-key');
    t.not(moved.headers.get('Idempotent-Replayed'), 'true');
  }
});

test('an upload replays when the same encoded form is sent again', async (t) => {
  const task = await fixture.tk.createTask(owner, { title: 'with files' });
  const boundary = 'idem-boundary-1';
  const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
  const send = () => fixture.tk.call(`/api/v1/tasks/${task.id}/attachments`, { method: 'POST', token: owner, body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Idempotency-Key': 'upload-1' } });
  const first = await send();
  t.is(first.status, 201, first.text);
  t.truthy(first.headers.get('Location'));
  const again = await send();
  t.is(again.status, 201, again.text);
  t.is(again.headers.get('Idempotent-Replayed'), 'true');
  t.deepEqual(again.body, first.body);
  const listed = await fixture.tk.call(`/api/v1/tasks/${task.id}/attachments`, { token: owner });
  t.is(listed.body.items.length, 1, 'stored once');
});

test('a body moleculer-web cannot parse still carries the CORS headers', async (t) => {
  const res = await fixture.tk.call('/api/v1/tasks', { method: 'POST', token: owner, body: '{"title":', headers: { 'Content-Type': 'application/json', Origin: ORIGIN } });
  t.is(res.status, 400, res.text);
  t.is(res.body.code, 'MALFORMED_JSON');
  t.is(res.headers.get('Access-Control-Allow-Origin'), ORIGIN);
  t.regex(res.headers.get('Access-Control-Expose-Headers') ?? '', /Idempotent-Replayed/);
});

test('the OpenAPI document shows the header where it is taken', async (t) => {
  const doc = (await fixture.tk.call('/api/openapi.json')).body;
  const header = (op: { parameters?: { in: string; name: string }[] }) => op.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key') ?? false;
  t.true(header(doc.paths['/api/v1/tasks'].post));
  t.true(header(doc.paths['/api/v1/tasks/{id}/attachments'].post));
  t.false(header(doc.paths['/api/v1/tasks'].get));
  t.false(header(doc.paths['/api/v1/tasks/{id}/move'].post));
  t.truthy(doc.paths['/api/v1/tasks'].post.responses['201'].headers.Location);
  t.truthy(doc.paths['/api/v1/tasks'].post.responses['201'].headers['Idempotent-Replayed']);
});
