import test from 'ava';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverPackageDirs } from '../kernel/capabilities/discover.ts';
import { readManifest } from '../kernel/capabilities/manifest.ts';
import { importEntry, toSchemas } from '../kernel/capabilities/import-entry.ts';
import { orderByRequires } from '../kernel/capabilities/order.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'packages');
const root = mkdtempSync(join(tmpdir(), 'wao-discover-'));
test.after.always(() => rmSync(root, { recursive: true, force: true }));

function pkg(dir: string, manifest: object, files: Record<string, string> = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
}

test('discovers package folders, npm scopes included, and ignores other folders', (t) => {
  const r = join(root, 'scan');
  pkg(join(r, 'a'), { name: 'a', capability: { kind: 'tool', roles: ['api'] } }, { 'index.js': '' });
  pkg(join(r, '@acme', 'b'), { name: '@acme/b', capability: { kind: 'node', roles: ['work'] } }, { 'index.js': '' });
  pkg(join(r, 'plain-lib'), { name: 'plain-lib' });
  mkdirSync(join(r, '.hidden'), { recursive: true });
  writeFileSync(join(r, 'file.txt'), 'x');
  t.deepEqual(discoverPackageDirs([r, join(root, 'missing')]), [join(r, '@acme', 'b'), join(r, 'a')]);
});

test('the entry is capability.entry, else main, else index.ts/index.js', async (t) => {
  pkg(join(root, 'e1'), { name: 'e1', main: 'lib/main.js', capability: { kind: 'domain', roles: ['api'], entry: 'src/entry.js' } }, { 'src/entry.js': '', 'lib/main.js': '' });
  pkg(join(root, 'e2'), { name: 'e2', main: 'lib/main.js', capability: { kind: 'domain', roles: ['api'] } }, { 'lib/main.js': '' });
  pkg(join(root, 'e3'), { name: 'e3', capability: { kind: 'domain', roles: ['api'] } }, { 'index.ts': '' });
  t.is((await readManifest(join(root, 'e1'))).entryPath, join(root, 'e1', 'src', 'entry.js'));
  t.is((await readManifest(join(root, 'e2'))).entryPath, join(root, 'e2', 'lib', 'main.js'));
  t.is((await readManifest(join(root, 'e3'))).entryPath, join(root, 'e3', 'index.ts'));
});

test('bad manifests are refused with a reason', async (t) => {
  pkg(join(root, 'm1'), { name: 'm1', capability: { kind: 'domain', roles: [] } }, { 'index.js': '' });
  pkg(join(root, 'm2'), { name: 'm2', capability: { kind: 'domain', roles: ['api'], entry: '../../etc/passwd' } });
  pkg(join(root, 'm3'), { capability: { kind: 'domain', roles: ['api'] } }, { 'index.js': '' });
  pkg(join(root, 'm4'), { name: 'm4', capability: { kind: 'domain', roles: ['api'], extra: 1 } }, { 'index.js': '' });
  mkdirSync(join(root, 'm5'));
  writeFileSync(join(root, 'm5', 'package.json'), '{ not json');
  await t.throwsAsync(readManifest(join(root, 'm1')), { message: /roles/ });
  await t.throwsAsync(readManifest(join(root, 'm2')), { message: /no entry found/ });
  await t.throwsAsync(readManifest(join(root, 'm3')), { message: /no "name"/ });
  await t.throwsAsync(readManifest(join(root, 'm4')), { message: /extra/ });
  await t.throwsAsync(readManifest(join(root, 'm5')), { message: /not valid JSON/ });
});

test('CommonJS, ESM and TypeScript entries all load, and reload afresh', async (t) => {
  const cjs = await importEntry((await readManifest(join(FIXTURES, 'cjs-hello'))).entryPath, join(FIXTURES, 'cjs-hello'));
  t.is(cjs[0].name, 'cjs-hello');
  const esm = await importEntry((await readManifest(join(FIXTURES, 'esm-hello'))).entryPath, join(FIXTURES, 'esm-hello'));
  t.is(esm[0].name, 'esm-hello');
  const ts = await importEntry((await readManifest(join(FIXTURES, 'greeter'))).entryPath, join(FIXTURES, 'greeter'));
  t.is(ts[0].name, 'greeter');

  const dir = join(root, 'cjs-reload');
  cpSync(join(FIXTURES, 'cjs-hello'), dir, { recursive: true });
  const handler = async () => ((await importEntry(join(dir, 'lib', 'service.js'), dir))[0].actions as any).hello.handler();
  t.deepEqual(await handler(), { message: 'hello from commonjs' });
  writeFileSync(join(dir, 'lib', 'greeting.js'), "exports.greeting = 'changed';");
  t.deepEqual(await handler(), { message: 'changed' });
});

test('export shapes: default, array, module.exports, named', (t) => {
  const s = { name: 'x' };
  t.deepEqual(toSchemas({ default: s }), [s]);
  t.deepEqual(toSchemas({ default: { default: s } }), [s]);
  t.deepEqual(toSchemas({ default: [s, { name: 'y' }] }), [s, { name: 'y' }]);
  t.deepEqual(toSchemas({ a: s, b: 1 }), [s]);
  t.throws(() => toSchemas({ default: 42 }), { message: /no moleculer service schema/ });
});

test('packages are ordered after what they require', (t) => {
  const d = (name: string, requires: string[] = []) => ({ name, version: '1', dir: name, entryPath: name, capability: { kind: 'domain' as const, roles: ['api' as const], requires } });
  t.deepEqual(orderByRequires([d('tasks', ['auth', 'workspaces']), d('workspaces', ['auth']), d('auth')]).map((p) => p.name), ['auth', 'workspaces', 'tasks']);
});
