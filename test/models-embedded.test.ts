import test from 'ava';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, startTestKernel, type TestKernel } from './helpers/kernel.ts';
import { startScriptedProvider, type ScriptedProvider } from './helpers/scripted-provider.ts';
import { USERS } from './helpers/models-kernel.ts';

const ROOT = join(import.meta.dirname, '..');
let kernel: TestKernel | undefined;
let provider: ScriptedProvider | undefined;
let root: string | undefined;

test.after.always(async () => {
  await kernel?.close();
  await provider?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

test('on the embedded database (PGlite): concurrent creates leave exactly one default, and chat works', async (t) => {
  root = mkdtempSync(join(tmpdir(), 'wao-models-embedded-'));
  symlinkSync(join(ROOT, 'plugins', 'models'), join(root, 'models'), 'dir');
  symlinkSync(join(ROOT, 'test', 'fixtures', 'packages', 'test-auth'), join(root, 'test-auth'), 'dir');
  provider = await startScriptedProvider();
  kernel = await startTestKernel({ roots: [root], env: { DATABASE_URL: '', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0', MODEL_OPENAI_BASE_URL: `${provider.url}/v1` } });
  const k = kernel;
  const created = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      api(k.apiUrl, '/api/v1/api-keys', { method: 'POST', token: 'owner-token', json: { name: `k${i}`, provider: 'openai', api_key: `sk-embedded-${i}-000000000000`, default_model: 'gpt-test', is_default: i % 2 === 0 } }),
    ),
  );
  t.deepEqual(created.map((r) => r.status), [201, 201, 201, 201, 201, 201], created.map((r) => r.text).join('\n'));
  const list = (await api(k.apiUrl, '/api/v1/api-keys', { token: 'owner-token' })).body;
  t.is(list.total, 6);
  const defaults = list.items.filter((key: { is_default: boolean }) => key.is_default);
  t.is(defaults.length, 1);
  provider.replies.push({ chunks: ['em', 'bedded'] });
  const result = await k.broker.call('models.chat', { messages: [{ role: 'user', content: 'hi' }] }, { meta: { user: USERS.owner } });
  t.like(result, { text: 'embedded', api_key_id: defaults[0].id });
  t.is(provider.requests.at(-1)!.headers.authorization, `Bearer sk-embedded-${defaults[0].name.slice(1)}-000000000000`);
});
