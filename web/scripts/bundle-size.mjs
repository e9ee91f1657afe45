// Sizes of the built app from Vite's manifest (web/dist/.vite/manifest.json): every chunk's
// gzip size, and the initial JS: the entry chunk plus every chunk it imports statically
// (what the browser must fetch before the first page renders; route chunks are excluded).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const INITIAL_JS_BUDGET_BYTES = 250 * 1024;

export function bundleSizes(dist) {
  const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
  const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  const chunks = Object.entries(manifest)
    .filter(([, c]) => c.file.endsWith('.js'))
    .map(([key, c]) => ({ key, file: c.file, bytes: readFileSync(join(dist, c.file)).length, gzip: gz(c.file), entry: Boolean(c.isEntry), dynamic: Boolean(c.isDynamicEntry) }));
  const initial = new Set();
  const visit = (key) => {
    if (initial.has(key)) return;
    initial.add(key);
    for (const dep of manifest[key]?.imports ?? []) visit(dep);
  };
  for (const [key, c] of Object.entries(manifest)) if (c.isEntry) visit(key);
  const initialGzip = chunks.filter((c) => initial.has(c.key)).reduce((n, c) => n + c.gzip, 0);
  return { chunks: chunks.sort((a, b) => b.gzip - a.gzip), initial: [...initial], initialGzip };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { chunks, initialGzip } = bundleSizes(join(import.meta.dirname, '..', 'dist'));
  for (const c of chunks) console.log(`${c.file.padEnd(48)} ${(c.gzip / 1024).toFixed(1).padStart(8)} KB gzip ${c.entry ? '(entry)' : c.dynamic ? '(route chunk)' : ''}`);
  console.log(`initial JS: ${(initialGzip / 1024).toFixed(1)} KB gzip (budget ${INITIAL_JS_BUDGET_BYTES / 1024} KB)`);
}
