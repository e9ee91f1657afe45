import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestFn } from 'ava';
import { api, startTestKernel, type TestKernel } from './kernel.ts';
import { createTestDatabase, type TestDatabase } from './pg.ts';

const ROOT = join(import.meta.dirname, '..', '..');

export interface TasksKernel {
  kernel: TestKernel;
  db: TestDatabase;
  call(path: string, init?: Parameters<typeof api>[2]): ReturnType<typeof api>;
  /** a workspace of that token's entity (through the real workspaces package) */
  createWorkspace(token: string, name?: string): Promise<string>;
  /** creates a task and returns its body; fails the test setup on anything but 201 */
  createTask(token: string, body?: Record<string, unknown>): Promise<any>;
}

/**
 * One kernel for a whole test file, on a fresh PostgreSQL database: the fixture identity
 * provider (tokens owner-token, admin-token, member-token of entity e-1; other-token of e-2),
 * plugins/workspaces and plugins/tasks (linked, so their relative kernel imports resolve).
 */
export function useTasksKernel(test: TestFn, label: string, env: Record<string, string> = {}, onStart?: (tk: TasksKernel) => void | Promise<void>): { readonly tk: TasksKernel } {
  let tk: TasksKernel | undefined;
  let root: string | undefined;
  test.before(async () => {
    root = mkdtempSync(join(tmpdir(), 'wao-tasks-'));
    cpSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), { recursive: true });
    symlinkSync(join(ROOT, 'plugins', 'workspaces'), join(root, 'workspaces'), 'dir');
    symlinkSync(join(ROOT, 'plugins', 'tasks'), join(root, 'tasks'), 'dir');
    const db = await createTestDatabase(label);
    let kernel: TestKernel;
    try {
      kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0', ...env } });
    } catch (err) {
      await db.drop();
      throw err;
    }
    const failed = kernel.loader.list().filter((p) => p.state !== 'loaded');
    if (failed.length) throw new Error(`packages failed to load: ${JSON.stringify(failed.map((p) => ({ name: p.name, error: p.error?.message })))}`);
    const call: TasksKernel['call'] = (path, init) => api(kernel.apiUrl, path, init);
    tk = {
      kernel,
      db,
      call,
      async createWorkspace(token, name = 'Workspace') {
        const res = await call('/api/v1/workspaces', { method: 'POST', token, json: { name } });
        if (res.status !== 201) throw new Error(`workspace create answered ${res.status}: ${res.text}`);
        return res.body.id as string;
      },
      async createTask(token, body = {}) {
        const res = await call('/api/v1/tasks', { method: 'POST', token, json: { title: 'A task', ...body } });
        if (res.status !== 201) throw new Error(`task create answered ${res.status}: ${res.text}`);
        return res.body;
      },
    };
    await onStart?.(tk);
  });
  test.after.always(async () => {
    await tk?.kernel.close();
    await tk?.db.drop();
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return {
    get tk() {
      if (!tk) throw new Error('the tasks kernel is not started');
      return tk;
    },
  };
}
