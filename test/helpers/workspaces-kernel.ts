import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startTestKernel, type TestKernel } from './kernel.ts';
import { createTestDatabase } from './pg.ts';

const ROOT = join(import.meta.dirname, '..', '..');
export const WORKSPACES_FIXTURES = join(ROOT, 'test', 'fixtures', 'workspaces-packages');

export interface WorkspacesKernel {
  kernel: TestKernel;
  /** a temp folder the test may write packages into (removed on close) */
  scratch: string;
  call(path: string, init?: Parameters<typeof api>[2]): ReturnType<typeof api>;
  /** creates a workspace as that token's user and returns its body */
  createWorkspace(token: string, body?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/**
 * A kernel on a fresh PostgreSQL database with the fixture identity provider, the real
 * plugins/workspaces package (linked, so its relative kernel imports resolve) and the given
 * fixture packages of test/fixtures/workspaces-packages.
 */
export async function startWorkspacesKernel(label: string, fixtures: string[] = []): Promise<WorkspacesKernel> {
  const root = mkdtempSync(join(tmpdir(), 'wao-ws-'));
  const scratch = mkdtempSync(join(tmpdir(), 'wao-ws-scratch-'));
  cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
  symlinkSync(join(ROOT, 'plugins', 'workspaces'), join(root, 'workspaces'), 'dir');
  for (const name of fixtures) symlinkSync(join(WORKSPACES_FIXTURES, name), join(root, name), 'dir');
  const db = await createTestDatabase(label);
  let kernel: TestKernel;
  try {
    kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0' } });
  } catch (err) {
    await db.drop();
    throw err;
  }
  const failed = kernel.loader.list().filter((p) => p.state !== 'loaded');
  if (failed.length) throw new Error(`packages failed to load: ${JSON.stringify(failed)}`);
  const call: WorkspacesKernel['call'] = (path, init) => api(kernel.apiUrl, path, init);
  return {
    kernel,
    scratch,
    call,
    async createWorkspace(token, body = {}) {
      const res = await call('/api/v1/workspaces', { method: 'POST', token, json: { name: 'Workspace', ...body } });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
      return res.body;
    },
    async close() {
      await kernel.close();
      await db.drop();
      rmSync(root, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
