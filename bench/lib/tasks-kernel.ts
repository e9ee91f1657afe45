import { cpSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kernelEnv, PROJECT_ROOT } from './kernel-process.ts';
import { startDetached, waitForStatus, type DetachedProcess } from './processes.ts';

/**
 * Starts bench/servers/tasks-kernel.ts detached: plugins/tasks, plugins/workspaces and the fixture
 * identity provider (token owner-token) under `work`, on `env` (DATABASE_URL at least); resolves
 * once /health/ready answers 200. `nodeFlags` go before the script (e.g. --cpu-prof).
 */
export async function startTasksKernel(work: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<{ apiUrl: string; proc: DetachedProcess }> {
  const root = join(work, 'packages');
  cpSync(resolve(PROJECT_ROOT, 'test/fixtures/packages/test-auth'), join(root, 'test-auth'), { recursive: true });
  symlinkSync(resolve(PROJECT_ROOT, 'plugins/tasks'), join(root, 'tasks'), 'dir');
  symlinkSync(resolve(PROJECT_ROOT, 'plugins/workspaces'), join(root, 'workspaces'), 'dir');
  const { env: processEnv, apiPort } = await kernelEnv(join(work, 'data'), { BENCH_PACKAGE_ROOT: root, ...env });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const proc = startDetached('kernel', process.execPath, [...nodeFlags, '--import', 'tsx', 'bench/servers/tasks-kernel.ts'], { env: processEnv, cwd: PROJECT_ROOT, logFile: join(work, 'kernel.log') });
  await waitForStatus(`${apiUrl}/health/ready`, 200, { proc, timeoutMs: 120_000 });
  return { apiUrl, proc };
}
