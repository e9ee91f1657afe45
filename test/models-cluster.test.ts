import test from 'ava';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { eventually } from './helpers/eventually.ts';
import { startScriptedProvider, type ScriptedProvider } from './helpers/scripted-provider.ts';
import { USERS } from './helpers/models-kernel.ts';
import { readChatStream, type ChatResult, type ChatStreamLine } from '../kernel/models-contract.ts';

const ROOT = join(import.meta.dirname, '..');
const roots: string[] = [];
const kernels: TestKernel[] = [];
let db: TestDatabase | undefined;
let provider: ScriptedProvider | undefined;

test.after.always(async () => {
  for (const k of kernels.reverse()) await k.close().catch(() => undefined);
  await db?.drop();
  await provider?.close();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function packageRoot(packages: [string, string][]): string {
  const root = mkdtempSync(join(tmpdir(), 'wao-models-cluster-'));
  for (const [name, path] of packages) symlinkSync(join(ROOT, path), join(root, name), 'dir');
  roots.push(root);
  return root;
}

test('over NATS: a node without the models package uses its routes, models.chat and the chatStream byte stream of another node', async (t) => {
  db = await createTestDatabase('models_cluster');
  provider = await startScriptedProvider();
  const suffix = randomUUID().slice(0, 8);
  const common = { TRANSPORTER: 'nats://127.0.0.1:4222', NAMESPACE: `test-models-${suffix}`, DATABASE_URL: db.url, RATE_LIMIT_PER_MINUTE: '0', SECRET_KEY: 'c'.repeat(64) };
  // the api node serves HTTP and identity only; the models package runs on the work node
  const apiNode = await startTestKernel({ roots: [packageRoot([['test-auth', 'test/fixtures/packages/test-auth']])], env: { ...common, ROLES: 'api', NODE_ID: `api-${suffix}` } });
  kernels.push(apiNode);
  const workNode = await startTestKernel({
    roots: [packageRoot([['models', 'plugins/models']])],
    env: { ...common, ROLES: 'work', NODE_ID: `work-${suffix}`, MODEL_OPENAI_BASE_URL: `${provider.url}/v1`, MODEL_ANTHROPIC_BASE_URL: provider.url },
  });
  kernels.push(workNode);
  t.false(apiNode.broker.getLocalService('models') !== undefined, 'no local models service on the api node');

  const created = await eventually(async () => {
    const res = await api(apiNode.apiUrl, '/api/v1/api-keys', { method: 'POST', token: 'owner-token', json: { name: 'Remote', provider: 'anthropic', api_key: 'sk-ant-remote-0000000000', default_model: 'claude-test' } });
    return res.status === 201 ? res : undefined;
  }, { timeoutMs: 30_000 });
  t.truthy(created, 'the api node routes /api/v1/api-keys to the work node');

  provider.replies.push({ text: 'from afar' });
  const result = (await apiNode.broker.call('models.chat', { messages: [{ role: 'user', content: 'hi' }] }, { meta: { user: USERS.owner } })) as ChatResult;
  t.like(result, { text: 'from afar', provider: 'anthropic', api_key_id: created!.body.id });

  const chunks = ['Ré', 'sumé ', '— ', 'multi-byte ', 'chunks'];
  provider.replies.push({ chunks, usage: { input_tokens: 3, output_tokens: 5 } });
  const stream = (await apiNode.broker.call('models.chatStream', { messages: [{ role: 'user', content: 'hi' }], system: 'Be brief.' }, { meta: { user: USERS.owner } })) as Readable;
  const lines: ChatStreamLine[] = [];
  for await (const line of readChatStream(stream)) lines.push(line);
  t.deepEqual(lines.filter((l) => l.type === 'delta').map((l) => (l as { text: string }).text), chunks);
  t.like(lines.at(-1), { type: 'done', text: chunks.join(''), usage: { input_tokens: 3, output_tokens: 5 } });

  // errors keep their code across the hop, on the broker and on HTTP
  provider.replies.push({ error: 500, message: 'upstream broke' });
  const err = await t.throwsAsync(apiNode.broker.call('models.chat', { messages: [{ role: 'user', content: 'hi' }] }, { meta: { user: USERS.owner } }));
  t.like(err, { code: 502, type: 'MODELS_ERR_PROVIDER' });
  const noKey = await t.throwsAsync(apiNode.broker.call('models.chat', { messages: [{ role: 'user', content: 'hi' }] }, { meta: { user: USERS.other } }));
  t.like(noKey, { code: 422, type: 'MODELS_ERR_NO_KEY' });
});
