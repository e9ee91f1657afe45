import test from 'ava';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { useKernel, api } from './helpers/kernel.ts';
import { eventually } from './helpers/eventually.ts';

const README = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
const root = mkdtempSync(join(tmpdir(), 'wao-readme-'));
const fixture = useKernel(test, { label: 'readme', roots: [root], env: { HOT_RELOAD: 'true' } });

/** The files of the README's example package: each "`plugins/hello/<file>`:" followed by a code block. */
function exampleFiles(): Record<string, string> {
  const section = README.split('<!-- example:hello-package -->')[1]?.split('<!-- /example:hello-package -->')[0];
  if (!section) throw new Error('README has no example:hello-package section');
  const files: Record<string, string> = {};
  for (const m of section.matchAll(/`plugins\/hello\/([^`]+)`:\s*\n+```[a-z]*\n([\s\S]*?)```/g)) files[m[1]] = m[2];
  return files;
}

test.after.always(() => rmSync(root, { recursive: true, force: true }));

test('the README example package, dropped into a watched folder, really works', async (t) => {
  const files = exampleFiles();
  t.deepEqual(Object.keys(files).sort(), ['index.js', 'package.json']);
  const dir = join(root, 'hello');
  mkdirSync(dir);
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, basename(name)), body);
  const res = await eventually(async () => {
    const r = await api(fixture.kernel.apiUrl, '/api/v1/hello/greet?name=ada');
    return r.status === 200 ? r : undefined;
  });
  t.deepEqual(res?.body, { message: 'hello, ada' });
  const bad = await api(fixture.kernel.apiUrl, '/api/v1/hello/greet?nam=ada');
  t.is(bad.status, 422);
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field), ['nam']);
  const pkgs = fixture.kernel.loader.list().find((p) => p.name === '@acme/hello');
  t.like(pkgs, { kind: 'domain', version: '1.0.0', state: 'loaded' });
});
