/** Shared set-up of the identity package's tests (not a test file itself). */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { QueryTypes } from 'sequelize';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';

export const AUTH_PACKAGE = resolve(import.meta.dirname, '..', 'plugins', 'auth');
export const OWNER_EMAIL = 'owner@auth.test';
export const OWNER_PASSWORD = 'correct horse battery staple';

/**
 * A package root holding only the identity package: a symlink, so the package's relative
 * imports of the kernel resolve from its real place.
 */
export function authOnlyRoot(): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'wao-auth-root-'));
  symlinkSync(AUTH_PACKAGE, join(root, 'auth'), 'dir');
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface AuthNode {
  kernel: TestKernel;
  url: string;
  /** rows of a query on the node's database */
  rows<T = Record<string, unknown>>(sql: string, replacements?: Record<string, unknown>): Promise<T[]>;
}

export interface AuthSetup {
  db: TestDatabase;
  node: AuthNode;
  close(): Promise<void>;
}

export async function startAuthNode(root: string, env: Record<string, string>): Promise<AuthNode> {
  const kernel = await startTestKernel({ roots: [root], env: { RATE_LIMIT_PER_MINUTE: '0', ADMIN_EMAIL: OWNER_EMAIL, ADMIN_PASSWORD: OWNER_PASSWORD, ...env } });
  const failed = kernel.loader.list().filter((p) => p.state !== 'loaded');
  if (failed.length) throw new Error(`auth package did not load: ${JSON.stringify(failed)}`);
  return {
    kernel,
    url: kernel.apiUrl,
    rows: <T>(sql: string, replacements?: Record<string, unknown>) => kernel.stores!.db.query(sql, { replacements, type: QueryTypes.SELECT }) as unknown as Promise<T[]>,
  };
}

/** A fresh database and one kernel node loading only the identity package. */
export async function startAuth(label: string, env: Record<string, string> = {}): Promise<AuthSetup> {
  const db = await createTestDatabase(label);
  const root = authOnlyRoot();
  let node: AuthNode;
  try {
    node = await startAuthNode(root.root, { DATABASE_URL: db.url, ...env });
  } catch (err) {
    root.remove();
    await db.drop();
    throw err;
  }
  return {
    db,
    node,
    async close() {
      await node.kernel.close();
      root.remove();
      await db.drop();
    },
  };
}

export async function login(url: string, email: string, password: string): Promise<string> {
  const res = await api(url, '/api/v1/auth/login', { method: 'POST', json: { email, password } });
  if (res.status !== 200) throw new Error(`login of ${email} failed: ${res.status} ${res.text}`);
  return res.body.access_token;
}

/** True when any answer shows a password hash: the scrypt format, or any hash (or its key) stored now. */
export async function anyHashLeaked(node: AuthNode, answers: string[]): Promise<boolean> {
  const stored = await node.rows<{ password_hash: string }>('SELECT password_hash FROM users');
  const secrets = stored.flatMap((r) => [r.password_hash, r.password_hash.split('$').at(-1)!]);
  return answers.some((text) => text.includes('scrypt$') || secrets.some((s) => text.includes(s)));
}
