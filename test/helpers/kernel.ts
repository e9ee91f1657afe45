import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../config/load.ts';
import type { TestFn } from 'ava';
import { startKernel, type Kernel } from '../../kernel/bootstrap.ts';
import { createTestDatabase, type TestDatabase } from './pg.ts';

export interface TestKernel extends Kernel {
  apiUrl: string;
  webUrl: string;
  dataDir: string;
  /** stop, then remove the temp data dir */
  close(): Promise<void>;
}

/**
 * Starts a real kernel node for a test: ephemeral ports, its own temp data dir, quiet logs.
 * Pass DATABASE_URL (from createTestDatabase) to use the machine's PostgreSQL; without it the
 * node boots embedded PGlite, which takes seconds on an empty dir.
 */
export async function startTestKernel(opts: { env?: Record<string, string>; roots: string[]; webRoot?: string }): Promise<TestKernel> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wao-kernel-'));
  const config = loadConfig(
    { API_PORT: '0', WEB_PORT: '0', API_HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'fatal', NODE_ENV: 'test', HOT_RELOAD: 'false', SHUTDOWN_GRACE_SECONDS: '10', ...opts.env },
    join(dataDir, '.env'),
  );
  const kernel = await startKernel(config, { roots: opts.roots, webRoot: opts.webRoot });
  return {
    ...kernel,
    apiUrl: kernel.apiUrl!,
    webUrl: kernel.webUrl!,
    dataDir,
    async close() {
      await kernel.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** fetch + JSON with the test's bearer token when given */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** a kept-alive connection the server closed as the request went out on it */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * fetch, sending an idempotent request once more when it went out on a kept-alive connection
 * the server was closing (RFC 9110 9.2.2 lets a client retry those): on a loaded machine the
 * client's idle timer can fire after the server's, and that race is not what a test checks.
 */
async function fetchRetryingStaleConnection(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const code = ((err as { cause?: { code?: string } }).cause ?? {}).code;
    if (!IDEMPOTENT.has((init.method ?? 'GET').toUpperCase()) || !code || !STALE_CONNECTION.has(code)) throw err;
    return fetch(url, init);
  }
}

export async function api(base: string, path: string, init: RequestInit & { token?: string; json?: unknown } = {}): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const res = await fetchRetryingStaleConnection(base + path, { ...init, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/**
 * Boots one kernel on a fresh PostgreSQL database for a whole test file (ava before/after
 * hooks), and tears both down afterwards. Read `.kernel` inside the tests.
 */
export function useKernel(test: TestFn, opts: { label: string; roots: string[]; env?: Record<string, string> }): { readonly kernel: TestKernel } {
  let kernel: TestKernel | undefined;
  let db: TestDatabase | undefined;
  test.before(async () => {
    db = await createTestDatabase(opts.label);
    kernel = await startTestKernel({ roots: opts.roots, env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0', ...opts.env } });
  });
  test.after.always(async () => {
    await kernel?.close();
    await db?.drop();
  });
  return {
    get kernel() {
      if (!kernel) throw new Error('the test kernel is not started');
      return kernel;
    },
  };
}
