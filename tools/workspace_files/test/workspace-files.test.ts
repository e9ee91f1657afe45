import test from 'ava';
import { join } from 'node:path';
import { startWorkspacesKernel, type WorkspacesKernel } from '../../../test/helpers/workspaces-kernel.ts';
import { kernelOf } from '../../../kernel/context.ts';
import { pathProblem, workspacePrefix } from '../paths.ts';
import { eventually } from '../../../test/helpers/eventually.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const MEMBER = { id: 'u-member', entity_id: 'e-1', role: 'member' };
const OTHER = { id: 'u-other', entity_id: 'e-2', role: 'owner' };
const MiB = 1024 * 1024;

let ws: WorkspacesKernel;
let a: string;
let b: string;

test.before(async () => {
  ws = await startWorkspacesKernel('tool_workspace_files');
  const record = await ws.kernel.loader.load(join(ROOT, 'tools', 'workspace_files'));
  if (record.state !== 'loaded') throw new Error(`tools/workspace_files did not load: ${record.error?.message}`);
  a = (await ws.createWorkspace('owner-token', { name: 'A' })).id;
  b = (await ws.createWorkspace('owner-token', { name: 'B' })).id;
});
test.after.always(async () => {
  await ws?.close();
});

function exec(args: Record<string, unknown>, workspace_id: string | null, user: typeof MEMBER | null = MEMBER): Promise<any> {
  const who = user ?? MEMBER;
  const context = { entity_id: who.entity_id, user_id: who.id, workspace_id, agent_id: null, run_id: null, step_id: null, invocation_id: null };
  return ws.kernel.broker.call('tool.workspace_files.execute', { arguments: args, context }, { meta: user ? { user } : {} });
}

async function failure(t: any, p: Promise<unknown>, type = 'TOOLS_ERR_FAILED', message?: RegExp): Promise<any> {
  const err = await t.throwsAsync(p);
  t.is(err?.type, type);
  if (message) t.regex(err?.message ?? '', message);
  return err;
}

test.serial('write, read, list, overwrite and delete text files of the workspace', async (t) => {
  t.deepEqual(await exec({ op: 'write', path: 'notes/today.md', content: '# Heute\nÜbersicht ✓' }, a), { path: 'notes/today.md', size: Buffer.byteLength('# Heute\nÜbersicht ✓') });
  await exec({ op: 'write', path: 'notes/archive/old.md', content: 'old' }, a);
  await exec({ op: 'write', path: 'readme.txt', content: '' }, a);
  t.deepEqual(await exec({ op: 'read', path: 'notes/today.md' }, a), { path: 'notes/today.md', size: 22, content: '# Heute\nÜbersicht ✓' });
  t.deepEqual((await exec({ op: 'list' }, a)).items.map((i: { path: string }) => i.path), ['notes/archive/old.md', 'notes/today.md', 'readme.txt']);
  t.deepEqual(await exec({ op: 'list', path: 'notes' }, a), { items: [{ path: 'notes/archive/old.md', size: 3 }, { path: 'notes/today.md', size: 22 }], truncated: false });
  await exec({ op: 'write', path: 'readme.txt', content: 'v2' }, a);
  t.is((await exec({ op: 'read', path: 'readme.txt' }, a)).content, 'v2');
  t.deepEqual(await exec({ op: 'delete', path: 'readme.txt' }, a), { path: 'readme.txt', deleted: true });
  t.deepEqual(await exec({ op: 'delete', path: 'readme.txt' }, a), { path: 'readme.txt', deleted: false });
  await failure(t, exec({ op: 'read', path: 'readme.txt' }, a), 'TOOLS_ERR_FAILED', /No file 'readme.txt'/);
  // files are kept under the entity and the workspace
  const stored = await kernelOf(ws.kernel.broker).objects.getBuffer(`${workspacePrefix('e-1', a)}notes/today.md`);
  t.is(stored?.toString('utf8'), '# Heute\nÜbersicht ✓');
});

test.serial('another workspace, and another entity, see none of these files', async (t) => {
  await exec({ op: 'write', path: 'secret.txt', content: 'e-1 only' }, a);
  t.deepEqual((await exec({ op: 'list' }, b)).items, []);
  await failure(t, exec({ op: 'read', path: 'secret.txt' }, b), 'TOOLS_ERR_FAILED', /No file/);
  // e-2 naming e-1's workspace: the workspace is not found in its entity
  for (const args of [{ op: 'read', path: 'secret.txt' }, { op: 'list' }, { op: 'write', path: 'secret.txt', content: 'x' }, { op: 'delete', path: 'secret.txt' }]) {
    const err = await failure(t, exec(args, a, OTHER));
    t.like(err.data, { cause: { code: 'NOT_FOUND', status: 404 } });
  }
  t.is((await exec({ op: 'read', path: 'secret.txt' }, a)).content, 'e-1 only');
  // e-2's own workspace is its own space
  const theirs = (await ws.createWorkspace('other-token', { name: 'Theirs' })).id;
  t.deepEqual((await exec({ op: 'list' }, theirs, OTHER)).items, []);
  await failure(t, exec({ op: 'read', path: 'secret.txt' }, theirs, OTHER), 'TOOLS_ERR_FAILED', /No file/);
});

test('a workspace is required, and the run user', async (t) => {
  await failure(t, exec({ op: 'list' }, null), 'TOOLS_ERR_FAILED', /works inside a workspace/);
  await failure(t, exec({ op: 'list' }, a, null), 'TOOLS_ERR_CONTEXT');
  await failure(t, exec({ op: 'list' }, '0190a0a0-0000-7000-8000-000000000000'), 'TOOLS_ERR_FAILED', /No workspace/);
});

test('paths are validated', async (t) => {
  for (const path of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/', './a', 'a\\b', 'a\u0000b', 'a\nb', 'x'.repeat(513), 'é'.repeat(400), ' a/b']) {
    t.truthy(pathProblem(path), JSON.stringify(path));
  }
  for (const path of ['a', 'a/b.c', 'Ünïcode/файл.txt', '.hidden', 'a..b', 'x'.repeat(512)]) t.is(pathProblem(path), undefined, path);
  await failure(t, exec({ op: 'read', path: '../../e-2/secret' }, a), 'TOOLS_ERR_FAILED', /'\.\.' segment/);
  await failure(t, exec({ op: 'write', path: '/abs', content: 'x' }, a), 'TOOLS_ERR_FAILED', /absolute/);
  await failure(t, exec({ op: 'list', path: 'a/../..' }, a), 'TOOLS_ERR_FAILED', /'\.\.' segment/);
  await failure(t, exec({ op: 'read', path: 'x'.repeat(513) }, a), 'TOOLS_ERR_INVALID_ARGUMENTS');
  await failure(t, exec({ op: 'write', path: 'x' }, a), 'TOOLS_ERR_INVALID_ARGUMENTS');
  await failure(t, exec({ op: 'rename', path: 'x' }, a), 'TOOLS_ERR_INVALID_ARGUMENTS');
});

test('read and write move at most 1 MiB of UTF-8 text', async (t) => {
  t.is((await exec({ op: 'write', path: 'big/max.txt', content: 'x'.repeat(MiB) }, a)).size, MiB);
  t.is((await exec({ op: 'read', path: 'big/max.txt' }, a)).content.length, MiB);
  // under the schema's character limit, over the byte limit in UTF-8
  await failure(t, exec({ op: 'write', path: 'big/multi.txt', content: 'é'.repeat(MiB / 2 + 1) }, a), 'TOOLS_ERR_FAILED', /at most 1048576 bytes/);
  await failure(t, exec({ op: 'write', path: 'big/over.txt', content: 'x'.repeat(MiB + 1) }, a), 'TOOLS_ERR_INVALID_ARGUMENTS');
  const objects = kernelOf(ws.kernel.broker).objects;
  await objects.put(`${workspacePrefix('e-1', a)}big/huge.txt`, Buffer.alloc(MiB + 1, 0x61));
  await failure(t, exec({ op: 'read', path: 'big/huge.txt' }, a), 'TOOLS_ERR_FAILED', /read handles at most 1048576 bytes/);
  await objects.put(`${workspacePrefix('e-1', a)}big/binary.bin`, Buffer.from([0xff, 0xfe, 0x00, 0x80]));
  await failure(t, exec({ op: 'read', path: 'big/binary.bin' }, a), 'TOOLS_ERR_FAILED', /not UTF-8 text/);
});

test.serial('an archived workspace is read-only; deleting it for good removes its files', async (t) => {
  const c = (await ws.createWorkspace('owner-token', { name: 'C' })).id;
  await exec({ op: 'write', path: 'keep.txt', content: 'kept' }, c);
  t.is((await ws.call(`/api/v1/workspaces/${c}`, { method: 'DELETE', token: 'owner-token' })).status, 200);
  t.is((await exec({ op: 'read', path: 'keep.txt' }, c)).content, 'kept');
  await failure(t, exec({ op: 'write', path: 'keep.txt', content: 'x' }, c), 'TOOLS_ERR_FAILED', /archived and read-only/);
  await failure(t, exec({ op: 'delete', path: 'keep.txt' }, c), 'TOOLS_ERR_FAILED', /archived/);
  t.is((await ws.call(`/api/v1/workspaces/${c}`, { method: 'DELETE', token: 'owner-token' })).status, 204);
  const objects = kernelOf(ws.kernel.broker).objects;
  const key = `${workspacePrefix('e-1', c)}keep.txt`;
  t.true(await eventually(async () => (await objects.head(key)) === null), 'the workspace.deleted listener removed the file');
});

test.serial('stat: whether a file exists, its size and when write last wrote it', async (t) => {
  t.deepEqual(await exec({ op: 'stat', path: 'stat/none.md' }, a), { path: 'stat/none.md', exists: false, size: null, modified_at: null });
  const before = Date.now();
  await exec({ op: 'write', path: 'stat/one.md', content: 'abc' }, a);
  const got = await exec({ op: 'stat', path: 'stat/one.md' }, a);
  t.like(got, { path: 'stat/one.md', exists: true, size: 3 });
  t.true(Date.parse(got.modified_at) >= before && Date.parse(got.modified_at) <= Date.now(), got.modified_at);
  t.false((await exec({ op: 'stat', path: 'stat/one.md' }, b)).exists, 'another workspace does not see it');
  await failure(t, exec({ op: 'stat', path: '../x' }, a), 'TOOLS_ERR_FAILED');
});
