import test from 'ava';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', '.git', 'data', 'dist']);
const SOURCE = /\.(ts|mts|js|mjs|cjs|json|sh)$|^run$/;
// built from parts so this file does not match itself
const SIBLING = new RegExp(['\\.\\./', 'shared', '|', "'\\.\\.'\\s*,\\s*'", 'shared', "'"].join(''));

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (SOURCE.test(name)) yield path;
  }
}

test('no code or test reaches outside the repository into a sibling shared/ folder (a clone has none)', (t) => {
  const offenders = [...files(ROOT)].filter((path) => SIBLING.test(readFileSync(path, 'utf8'))).map((path) => relative(ROOT, path));
  t.deepEqual(offenders, []);
});
