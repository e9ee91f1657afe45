import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes a tiny ESM capability package whose routes answer with the given version. */
export function writePackage(root: string, name: string, opts: { version?: number; service?: string; kind?: string; body?: string } = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: `1.0.${opts.version ?? 1}`, type: 'module', capability: { kind: opts.kind ?? 'domain', roles: ['api'] } }));
  writeFileSync(join(dir, 'version.js'), `export const version = ${opts.version ?? 1};\n`);
  writeFileSync(
    join(dir, 'index.js'),
    opts.body ??
      `import { version } from './version.js';
export default {
  name: ${JSON.stringify(opts.service ?? name)},
  actions: {
    ping: { rest: 'GET /ping', auth: false, handler: () => ({ pong: true, version }) },
    slow: { rest: 'GET /slow', auth: false, params: { ms: { type: 'number', integer: true, min: 0, max: 10000 } },
      handler: async (ctx) => { await new Promise((r) => setTimeout(r, ctx.params.ms)); return { slept: ctx.params.ms, version }; } },
  },
};
`,
  );
  return dir;
}

/**
 * A temp package root holding links to the named packages of this repository (e.g.
 * `plugins/auth`), so a test loads exactly those; links keep their `../../kernel` imports working.
 */
export function linkedPackageRoot(packages: string[]): { root: string; remove(): void } {
  const repo = join(import.meta.dirname, '..', '..');
  const root = mkdtempSync(join(tmpdir(), 'wao-pkgs-'));
  for (const pkg of packages) symlinkSync(join(repo, pkg), join(root, pkg.replace(/[/\\]/g, '-')), 'dir');
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
