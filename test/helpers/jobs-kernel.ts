import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** A temp package root: the fixture identity provider and probe executors, plus links to the jobs and scheduler packages (remove it afterwards). */
export function jobsPackagesRoot(extra: string[] = []): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'wao-jobs-'));
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'probe-executor'), join(root, 'probe-executor'), { recursive: true });
  for (const pkg of ['plugins/jobs', 'plugins/scheduler', ...extra]) symlinkSync(join(ROOT, pkg), join(root, pkg.replace('/', '-')), 'dir');
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
