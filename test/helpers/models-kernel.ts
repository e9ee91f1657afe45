import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { api, startTestKernel, type TestKernel } from './kernel.ts';
import { createTestDatabase, type TestDatabase } from './pg.ts';
import { startScriptedProvider, type ScriptedProvider } from './scripted-provider.ts';
import { readChatStream, type ChatParams, type ChatResult, type ChatStreamLine } from '../../kernel/models-contract.ts';
import { readGenerateStream, type GenerateParams, type GenerateResult, type GenerateStreamLine } from '../../kernel/models-generate-contract.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** The identities of the fixture test-auth package, as `ctx.meta.user` of an internal call. */
export const USERS = {
  owner: { id: 'u-owner', entity_id: 'e-1', role: 'owner' },
  member: { id: 'u-member', entity_id: 'e-1', role: 'member' },
  other: { id: 'u-other', entity_id: 'e-2', role: 'owner' },
} as const;

export interface ModelsKernel {
  kernel: TestKernel;
  db: TestDatabase;
  /** the scripted provider both MODEL_*_BASE_URL point at */
  provider: ScriptedProvider;
  call(path: string, init?: Parameters<typeof api>[2]): ReturnType<typeof api>;
  /** POST /api/v1/api-keys as that token; returns the body (throws unless 201) */
  addKey(token: string, body?: Record<string, unknown>): Promise<any>;
  chat(params: ChatParams, user?: object): Promise<ChatResult>;
  /** models.chatStream, read to its end */
  chatStream(params: ChatParams, user?: object): Promise<ChatStreamLine[]>;
  generate(params: GenerateParams, user?: object): Promise<GenerateResult>;
  /** models.generateStream, read to its end */
  generateStream(params: GenerateParams, user?: object): Promise<GenerateStreamLine[]>;
  /** stops the kernel; drops the database and stops the provider unless they were reused or `keepStores` */
  close(opts?: { keepStores?: boolean }): Promise<void>;
}

/**
 * A kernel on a fresh PostgreSQL database with exactly plugins/models and the fixture identity
 * provider (linked), its provider base URLs pointing at a scripted provider. `reuse` boots
 * against an existing database (and provider) instead, to restart with other settings.
 */
export async function startModelsKernel(label: string, opts: { env?: Record<string, string>; reuse?: { db: TestDatabase; provider: ScriptedProvider } } = {}): Promise<ModelsKernel> {
  const root = mkdtempSync(join(tmpdir(), 'wao-models-'));
  symlinkSync(join(ROOT, 'plugins', 'models'), join(root, 'models'), 'dir');
  symlinkSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), 'dir');
  const db = opts.reuse?.db ?? (await createTestDatabase(label));
  const provider = opts.reuse?.provider ?? (await startScriptedProvider());
  let kernel: TestKernel;
  try {
    kernel = await startTestKernel({
      roots: [root],
      env: { DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0', MODEL_OPENAI_BASE_URL: `${provider.url}/v1`, MODEL_ANTHROPIC_BASE_URL: provider.url, ...opts.env },
    });
  } catch (err) {
    if (!opts.reuse) await Promise.all([db.drop(), provider.close()]);
    throw err;
  }
  const failed = kernel.loader.list().filter((p) => p.state !== 'loaded');
  if (failed.length) throw new Error(`packages failed to load: ${JSON.stringify(failed)}`);
  const call: ModelsKernel['call'] = (path, init) => api(kernel.apiUrl, path, init);
  let closed = false;
  return {
    kernel,
    db,
    provider,
    call,
    async addKey(token, body = {}) {
      const res = await call('/api/v1/api-keys', { method: 'POST', token, json: { name: 'Key', provider: 'openai', api_key: 'sk-test-0123456789abcdef', default_model: 'gpt-test', ...body } });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.text}`);
      return res.body;
    },
    chat: (params, user = USERS.owner) => kernel.broker.call('models.chat', params, { meta: { user } }) as Promise<ChatResult>,
    async chatStream(params, user = USERS.owner) {
      const stream = (await kernel.broker.call('models.chatStream', params, { meta: { user } })) as Readable;
      const lines: ChatStreamLine[] = [];
      for await (const line of readChatStream(stream)) lines.push(line);
      return lines;
    },
    generate: (params, user = USERS.owner) => kernel.broker.call('models.generate', params, { meta: { user } }) as Promise<GenerateResult>,
    async generateStream(params, user = USERS.owner) {
      const stream = (await kernel.broker.call('models.generateStream', params, { meta: { user } })) as Readable;
      const lines: GenerateStreamLine[] = [];
      for await (const line of readGenerateStream(stream)) lines.push(line);
      return lines;
    },
    async close({ keepStores = false } = {}) {
      if (!closed) {
        closed = true;
        await kernel.close();
        rmSync(root, { recursive: true, force: true });
      }
      if (!opts.reuse && !keepStores) await Promise.all([db.drop(), provider.close()]);
    },
  };
}
