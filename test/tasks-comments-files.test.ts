import test from 'ava';
import { useTasksKernel } from './helpers/tasks-kernel.ts';

const LIMIT = 64 * 1024;
const fixture = useTasksKernel(test, 'tasks_comments_files', { UPLOAD_LIMIT_BYTES: String(LIMIT) });
const owner = 'owner-token';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

function form(files: { name: string; type: string; bytes: Uint8Array }[]): FormData {
  const data = new FormData();
  for (const f of files) data.append('file', new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name);
  return data;
}

const upload = (taskId: string, files: { name: string; type: string; bytes: Uint8Array }[], token = owner) =>
  fixture.tk.call(`/api/v1/tasks/${taskId}/attachments`, { method: 'POST', token, body: form(files) });

const comment = (taskId: string, json: Record<string, unknown>, token = owner) => fixture.tk.call(`/api/v1/tasks/${taskId}/logs`, { method: 'POST', token, json });

async function executionOf(taskId: string): Promise<any[]> {
  return (await fixture.tk.call(`/api/v1/tasks/${taskId}`, { token: owner })).body.execution_record;
}

test('a comment is stored as Markdown and listed oldest first', async (t) => {
  const task = await fixture.tk.createTask(owner);
  const first = await comment(task.id, { body: '**first**' });
  t.is(first.status, 201, first.text);
  t.like(first.body, { body: '**first**', author: { type: 'user', id: 'u-owner' }, task: { status: 'created', version: 1 } });
  await comment(task.id, { body: 'second' }, 'member-token');
  const list = await fixture.tk.call(`/api/v1/tasks/${task.id}/logs`, { token: owner });
  t.is(list.status, 200);
  t.is(list.body.total, 2);
  t.deepEqual(list.body.items.map((l: any) => l.body), ['**first**', 'second']);
  const history = await fixture.tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner });
  t.is(history.body.items.filter((h: any) => h.action === 'comment').length, 2);
});

test('a comment on a waiting task resumes it through the machine, recorded', async (t) => {
  const { tk } = fixture;
  for (const waiting of ['waiting_on_customer', 'on_hold']) {
    const task = await tk.createTask(owner);
    await tk.call(`/api/v1/tasks/${task.id}/move`, { method: 'POST', token: owner, json: { status: 'in_progress' } });
    await tk.call(`/api/v1/tasks/${task.id}/move`, { method: 'POST', token: owner, json: { status: waiting } });
    const res = await comment(task.id, { body: 'here is the answer' });
    t.is(res.status, 201, res.text);
    t.like(res.body.task, { status: 'in_progress', version: 4 });
    const history = (await tk.call(`/api/v1/tasks/${task.id}/history`, { token: owner })).body.items;
    const last = history[history.length - 1];
    t.like(last, { action: 'comment' });
    t.deepEqual(last.changes[0], { field: 'status', from: waiting, to: 'in_progress' });
  }
  const blocked = await tk.createTask(owner);
  await tk.call(`/api/v1/tasks/${blocked.id}/move`, { method: 'POST', token: owner, json: { status: 'blocked' } });
  t.like((await comment(blocked.id, { body: 'still blocked' })).body.task, { status: 'blocked' }, 'a blocked task is not waiting');
});

test('an @-mention of an agent dispatches it: execution record entry, recorded as dispatched', async (t) => {
  const task = await fixture.tk.createTask(owner);
  const res = await comment(task.id, { body: 'please look @agent:researcher-1 and @user:u-member, not `@agent:in-code`. Thanks @agent:researcher-1.' });
  t.is(res.status, 201, res.text);
  t.deepEqual(res.body.mentions, [{ type: 'agent', id: 'researcher-1' }, { type: 'user', id: 'u-member' }]);
  const record = await executionOf(task.id);
  t.is(record.length, 1);
  t.like(record[0], { kind: 'dispatch', data: { agent_id: 'researcher-1', reason: 'mention', state: 'dispatched', event: 'task.run.requested', log_id: res.body.id } });
});

test('creating a task with an agent assigned requests its run at once, recorded as dispatched', async (t) => {
  const task = await fixture.tk.createTask(owner, { assignee: { type: 'agent', id: 'writer' } });
  const record = await executionOf(task.id);
  t.is(record.length, 1);
  t.like(record[0], { kind: 'dispatch', data: { agent_id: 'writer', reason: 'assigned_at_creation', state: 'dispatched' } });
  const human = await fixture.tk.createTask(owner, { assignee: { type: 'user', id: 'u-admin' } });
  t.deepEqual(await executionOf(human.id), []);
});

test('files are streamed to the store, typed by their bytes, downloaded under their original name', async (t) => {
  const task = await fixture.tk.createTask(owner);
  const res = await upload(task.id, [
    { name: 'photo.png', type: 'text/plain', bytes: PNG },
    { name: 'notes ünï.txt', type: 'image/png', bytes: Buffer.from('plain words\n') },
    { name: '../../evil.png', type: 'image/png', bytes: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]) },
  ]);
  t.is(res.status, 201, res.text);
  t.is(res.body.length, 3);
  const [png, txt, elf] = res.body;
  t.like(png, { filename: 'photo.png', content_type: 'image/png', size: PNG.length });
  t.like(txt, { filename: 'notes ünï.txt', content_type: 'text/plain' });
  t.like(elf, { filename: 'evil.png', content_type: 'application/x-executable' });

  const download = await fetch(fixture.tk.kernel.apiUrl + txt.download_path, { headers: { Authorization: `Bearer ${owner}` } });
  t.is(download.status, 200);
  t.is(download.headers.get('content-type'), 'text/plain');
  t.is(download.headers.get('content-disposition'), `attachment; filename="notes _n_.txt"; filename*=UTF-8''notes%20%C3%BCn%C3%AF.txt`);
  t.is(await download.text(), 'plain words\n');

  const list = await fixture.tk.call(`/api/v1/tasks/${task.id}/attachments`, { token: owner });
  t.is(list.body.items.length, 3);

  const linked = await comment(task.id, { body: 'see the photo', attachment_ids: [png.id] });
  t.is(linked.status, 201, linked.text);
  t.deepEqual(linked.body.attachments.map((a: any) => a.id), [png.id]);
  const again = await comment(task.id, { body: 'same photo again', attachment_ids: [png.id] });
  t.is(again.status, 422, 'a file belongs to one comment');
  t.is(again.body.errors[0].field, 'attachment_ids');
  const logs = await fixture.tk.call(`/api/v1/tasks/${task.id}/logs`, { token: owner });
  t.is(logs.body.total, 1, 'the refused comment left nothing');
});

test('a file over the upload limit is a 413 and nothing is stored', async (t) => {
  const task = await fixture.tk.createTask(owner);
  const res = await upload(task.id, [{ name: 'big.bin', type: 'application/octet-stream', bytes: Buffer.alloc(LIMIT + 1, 7) }]);
  t.is(res.status, 413, res.text);
  t.is(res.body.code, 'PAYLOAD_TOO_LARGE');
  const list = await fixture.tk.call(`/api/v1/tasks/${task.id}/attachments`, { token: owner });
  t.deepEqual(list.body.items, []);
  const keys: string[] = [];
  for await (const o of fixture.tk.kernel.stores!.objects.list(`tasks/e-1/${task.id}/`)) keys.push(o.key);
  t.deepEqual(keys, [], 'no partial bytes were left in the object store');
  const exact = await upload(task.id, [{ name: 'edge.bin', type: 'application/octet-stream', bytes: Buffer.alloc(LIMIT, 7) }]);
  t.is(exact.status, 201, exact.text);
});

test('an upload without a file is a 400 saying so, and stores nothing', async (t) => {
  const task = await fixture.tk.createTask(owner);
  const empty = await fixture.tk.call(`/api/v1/tasks/${task.id}/attachments`, { method: 'POST', token: owner, body: new FormData() });
  t.is(empty.status, 400, empty.text);
  t.regex(empty.body.detail, /File missing/);
  const fieldOnly = new FormData();
  fieldOnly.append('colour', 'red');
  t.is((await fixture.tk.call(`/api/v1/tasks/${task.id}/attachments`, { method: 'POST', token: owner, body: fieldOnly })).status, 400);
  t.deepEqual((await fixture.tk.call(`/api/v1/tasks/${task.id}/attachments`, { token: owner })).body.items, []);
});

test("another entity's task has no comments or files to see or add", async (t) => {
  const task = await fixture.tk.createTask(owner);
  const other = 'other-token';
  t.is((await comment(task.id, { body: 'hi' }, other)).status, 404);
  t.is((await fixture.tk.call(`/api/v1/tasks/${task.id}/logs`, { token: other })).status, 404);
  t.is((await upload(task.id, [{ name: 'a.txt', type: 'text/plain', bytes: Buffer.from('x') }], other)).status, 404);
  t.is((await fixture.tk.call(`/api/v1/tasks/${task.id}/attachments`, { token: other })).status, 404);
  t.is((await fixture.tk.call(`/api/v1/tasks/${task.id}/logs`, { token: owner })).body.total, 0);
});
