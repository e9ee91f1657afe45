import test from 'ava';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createObjectStore, type ObjectStore } from '../kernel/objects/index.ts';
import { objectStoreContract } from './helpers/object-store-contract.ts';

let tempRoot = '';
let store: ObjectStore;

test.before(async () => {
  tempRoot = await mkdtemp(join(tmpdir(), 'objects-local-'));
  // a folder that does not exist yet: the driver creates it
  store = createObjectStore({ driver: 'local', dir: join(tempRoot, 'contract', 'nested') });
});

test.after.always(async () => {
  await store?.close();
  if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
});

objectStoreContract('local', () => store, { listsInByteOrder: true });

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
}

test('local: the driver reports its name and creates its root on first use', async (t) => {
  const dir = join(tempRoot, 'fresh', 'a', 'b');
  const local = createObjectStore({ driver: 'local', dir });
  t.is(local.driver, 'local');
  await local.check();
  t.deepEqual(await readdir(dir), []); // the probe cleaned up after itself, folders included
});

test('local: check() fails with a clear message when the root cannot be created', async (t) => {
  const blocker = join(tempRoot, 'a-file');
  await writeFile(blocker, 'not a folder');
  const local = createObjectStore({ driver: 'local', dir: join(blocker, 'store') });
  const err = await t.throwsAsync(local.check());
  t.regex(err!.message, /Object store check failed for local directory/);
  t.true(err!.message.includes(join(blocker, 'store')), err!.message);
  t.regex(err!.message, /ENOTDIR|EEXIST/);
});

test('local: check() under /proc fails instead of hanging', async (t) => {
  // procfs answers ENOENT to every mkdir, on which Node's recursive mkdir loops forever
  const local = createObjectStore({ driver: 'local', dir: `/proc/objects-test-${process.pid}/store` });
  const err = await t.throwsAsync(local.check());
  t.regex(err!.message, /Object store check failed for local directory .*ENOENT/);
});

test('local: each object is one record and one blob, with no temporary files left', async (t) => {
  const dir = join(tempRoot, 'layout');
  const local = createObjectStore({ driver: 'local', dir });
  await local.put('a/b.txt', 'one');
  await local.put('a/b.txt', 'two'); // the replaced blob is removed
  await local.put('a', 'a key that is also a folder of other keys');
  const failing = (async function* () {
    yield Buffer.from('partial');
    throw new Error('source stream broke on purpose');
  })();
  await t.throwsAsync(local.put('a/b.txt', failing), { message: /broke on purpose/ }); // its blob is removed
  const files = await filesUnder(dir);
  t.is(files.length, 4, files.join(', '));
  t.deepEqual(files.filter((f) => f.endsWith('.m')), ['a.d/b.txt.m', 'a.m']);
  t.is(files.filter((f) => /\.[0-9a-f]{32}\.o$/.test(f)).length, 2);
  await local.delete('a/b.txt');
  await local.delete('a');
  t.deepEqual(await readdir(dir), [], 'empty folders are pruned after delete');
});

test('local: concurrent puts to one key leave no orphaned blob behind', async (t) => {
  const dir = join(tempRoot, 'contended');
  const local = createObjectStore({ driver: 'local', dir });
  await Promise.all(Array.from({ length: 12 }, (_, i) => local.put('same/key', Buffer.alloc(10_000 + i, i))));
  const files = await filesUnder(dir);
  t.is(files.length, 2, files.join(', '));
  t.deepEqual(files.filter((f) => f.endsWith('.m')), ['same.d/key.m']);
});

test('local: a blob left by a crash before its record was committed stays invisible', async (t) => {
  const dir = join(tempRoot, 'crash');
  const local = createObjectStore({ driver: 'local', dir });
  await local.put('kept', 'committed');
  // what a crash between writing the blob and renaming the record leaves behind
  await writeFile(join(dir, 'orphan.0123456789abcdef0123456789abcdef.o'), 'half written');
  await writeFile(join(dir, 'kept.fedcba9876543210fedcba9876543210.t'), '{"blob":"broken');
  t.is(await local.get('orphan'), null);
  t.deepEqual(await local.getBuffer('kept'), Buffer.from('committed'));
  const listed = [];
  for await (const entry of local.list('')) listed.push(entry);
  t.deepEqual(listed, [{ key: 'kept', size: 9 }]);
});

test('local: a key segment too long for a file name is rejected, naming the key', async (t) => {
  const local = createObjectStore({ driver: 'local', dir: join(tempRoot, 'long') });
  const key = `ok/${'x'.repeat(300)}`;
  const err = await t.throwsAsync(local.put(key, 'x'));
  t.true(err!.message.includes(JSON.stringify(key)));
  t.regex(err!.message, /longer than 220 bytes/);
});

test('local: createObjectStore refuses a local store without dir', (t) => {
  t.throws(() => createObjectStore({ driver: 'local' }), { message: /needs dir/ });
});
