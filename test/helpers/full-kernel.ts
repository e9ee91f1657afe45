import { existsSync } from 'node:fs';
import { BUILTIN_ROOTS } from '../../kernel/capabilities/discover.ts';
import { join } from 'node:path';
import type { TestFn } from 'ava';
import type { Role } from '../../kernel/tenancy/roles.ts';
import { api, startTestKernel, type TestKernel } from './kernel.ts';
import { createTestDatabase, type TestDatabase } from './pg.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PASSWORD = 'correct horse battery staple';

export interface FullKernel {
  kernel: TestKernel;
  /** a live token of a user of one entity per role (the first-start owner, and one invited user each) */
  tokens: Record<Role, string>;
  call(path: string, init?: Parameters<typeof api>[2]): ReturnType<typeof api>;
  /** POST as that token; fails the test setup on anything but 2xx; answers the body */
  make(token: string, path: string, json: unknown): Promise<any>;
}

/**
 * One kernel for a test file with every package of the project, as `npm start` loads them (the
 * real identity package included), on a fresh PostgreSQL database; and a user of each role.
 * `onStart` makes the file's own records, once the users exist.
 */
export function useFullKernel(test: TestFn, label: string, onStart?: (fk: FullKernel) => Promise<void>): { readonly fk: FullKernel } {
  let fk: FullKernel | undefined;
  let db: TestDatabase | undefined;
  let kernel: TestKernel | undefined;
  test.before(async () => {
    db = await createTestDatabase(label);
    kernel = await startTestKernel({
      roots: BUILTIN_ROOTS.map((r) => join(ROOT, r)).filter((r) => existsSync(r)),
      env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0', ADMIN_EMAIL: 'owner@roles.test', ADMIN_PASSWORD: PASSWORD },
    });
    const apiUrl = kernel.apiUrl;
    const call: FullKernel['call'] = (path, init) => api(apiUrl, path, init);
    const make: FullKernel['make'] = async (token, path, json) => {
      const res = await call(path, { method: 'POST', token, json });
      if (res.status < 200 || res.status > 299) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
      return res.body;
    };
    const login = async (email: string) => (await call('/api/v1/auth/login', { method: 'POST', json: { email, password: PASSWORD } })).body.access_token as string;
    const owner = await login('owner@roles.test');
    const tokens = { owner } as Record<Role, string>;
    for (const role of ['admin', 'member', 'viewer'] as const) {
      await make(owner, '/api/v1/users', { email: `${role}@roles.test`, password: PASSWORD, role });
      tokens[role] = await login(`${role}@roles.test`);
    }
    fk = { kernel, tokens, call, make };
    await onStart?.(fk);
  });
  test.after.always(async () => {
    await kernel?.close();
    await db?.drop();
  });
  return {
    get fk() {
      if (!fk) throw new Error('the full kernel is not started');
      return fk;
    },
  };
}
