// `npm start` runs this first: it builds the web app (vite build) when web/dist is missing or
// was built from other sources than the ones here. "Other" is decided by a hash of the app's
// inputs written beside the build (dist/.inputs-hash), not by file times, which a fresh clone
// or a checkout does not keep meaningful.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

const WEB = resolve(import.meta.dirname, '..');
const DIST = join(WEB, 'dist');
const STAMP = join(DIST, '.inputs-hash');
const INPUTS = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json'];

/** A hash of every file the build reads (paths and contents), in a fixed order. */
export function inputsHash() {
  const hash = createHash('sha256');
  const files = [];
  const walk = (path) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) for (const name of readdirSync(path).sort()) walk(join(path, name));
    else files.push(path);
  };
  for (const input of INPUTS) walk(join(WEB, input));
  for (const file of files) hash.update(relative(WEB, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

export function buildIsCurrent() {
  return existsSync(join(DIST, 'index.html')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === inputsHash();
}

export function ensureBuild({ quiet = false } = {}) {
  if (buildIsCurrent()) return;
  if (!quiet) console.log('web/dist is missing or stale: building the web app (vite build)…');
  const vite = join(WEB, 'node_modules', '.bin', 'vite');
  const bin = existsSync(vite) ? vite : resolve(WEB, '..', 'node_modules', '.bin', 'vite');
  // a production bundle whatever NODE_ENV the caller runs under (tests run with NODE_ENV=test,
  // which would make Vite bundle React's development build)
  const out = spawnSync(bin, ['build', '--mode', 'production', '--logLevel', quiet ? 'error' : 'warn'], { cwd: WEB, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (out.status !== 0) throw new Error(`vite build failed (exit ${out.status})`);
  writeFileSync(STAMP, inputsHash());
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    ensureBuild();
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
