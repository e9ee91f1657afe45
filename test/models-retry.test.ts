import test from 'ava';
import { retryAfterOf } from '../plugins/models/sdk/failure.ts';
import type { GenerateStreamLine } from '../kernel/models-generate-contract.ts';
import { startModelsKernel, type ModelsKernel } from './helpers/models-kernel.ts';

let mk: ModelsKernel;
const keys = { openai: '', anthropic: '' };
const SECRETS = { openai: 'sk-retry-openai-SECRETVALUE-123', anthropic: 'sk-ant-retry-SECRETVALUE-456' };
const messages = [{ role: 'user' as const, content: 'hi' }];

test.before(async () => {
  mk = await startModelsKernel('models_retry', { env: { MODEL_MAX_RETRIES: '2' } });
  keys.openai = (await mk.addKey('owner-token', { name: 'OpenAI', provider: 'openai', api_key: SECRETS.openai, default_model: 'gpt-test', is_default: true })).id;
  keys.anthropic = (await mk.addKey('owner-token', { name: 'Anthropic', provider: 'anthropic', api_key: SECRETS.anthropic, default_model: 'claude-test' })).id;
});
test.after.always(async () => {
  await mk?.close();
});

const retries = (lines: GenerateStreamLine[]) => lines.filter((l): l is Extract<GenerateStreamLine, { type: 'retry' }> => l.type === 'retry');

// the scripted provider answers requests in order: the tests of this file run one at a time
for (const provider of ['openai', 'anthropic'] as const) {
  test.serial(`${provider}: a 429 with Retry-After is retried after the time it asked for, then succeeds`, async (t) => {
    const seen = mk.provider.requests.length;
    mk.provider.replies.push({ error: 429, retry_after: 1, message: 'slow down' }, { chunks: ['after', ' the wait'] });
    const lines = await mk.generateStream({ messages, api_key_id: keys[provider] });
    t.deepEqual(retries(lines), [{ type: 'retry', attempt: 2, wait_ms: 1000, reason: `${provider} answered 429: slow down` }]);
    t.like(lines.at(-1), { type: 'done', text: 'after the wait', attempts: 2 });
    t.is(lines.findIndex((l) => l.type === 'retry'), 0, 'the retry line comes before any delta');
    t.is(mk.provider.requests.length - seen, 2);

    mk.provider.replies.push({ error: 429, retry_after_ms: 20 }, { text: 'fine' });
    const turn = await mk.generate({ messages, api_key_id: keys[provider] });
    t.like(turn, { text: 'fine', attempts: 2 });
  });

  test.serial(`${provider}: 429, then 500, then garbage fails with a clear, scrubbed reason after MODEL_MAX_RETRIES retries`, async (t) => {
    const seen = mk.provider.requests.length;
    mk.provider.replies.push(
      { error: 429, retry_after: 0, message: `rate limited for key ${SECRETS[provider]}` },
      { error: 500, message: `internal error (Bearer ${SECRETS[provider]})` },
      { raw: { status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'data: {garbage\n\n' } },
    );
    const lines = await mk.generateStream({ messages, api_key_id: keys[provider] });
    const waits = retries(lines);
    t.deepEqual(waits.map((r) => [r.attempt, r.wait_ms]), [[2, 0], [3, 1000]], 'Retry-After 0, then the backoff (500 ms doubled)');
    const last = lines.at(-1) as Extract<GenerateStreamLine, { type: 'error' }>;
    t.like(last, { type: 'error', status: 502, code: 'MODELS_ERR_PROVIDER' });
    t.regex(last.message, /not JSON.*after 3 attempts/);
    t.is(mk.provider.requests.length - seen, 3);
    for (const text of [JSON.stringify(lines)]) {
      t.false(text.includes(SECRETS[provider]), 'no key in any line');
      t.false(text.includes('SECRETVALUE'), 'nor any part of it');
    }
  });

  test.serial(`${provider}: each retryable failure is retried at most MODEL_MAX_RETRIES times`, async (t) => {
    const seen = mk.provider.requests.length;
    mk.provider.replies.push({ error: 503, message: 'one' }, { error: 502, message: 'two' }, { error: 500, message: 'three' }, { text: 'never asked for' });
    const err = await t.throwsAsync(mk.generate({ messages, api_key_id: keys[provider] }));
    t.like(err, { code: 502, type: 'MODELS_ERR_PROVIDER' });
    t.like((err as unknown as { data: object }).data, { provider_status: 500, attempts: 3 });
    t.regex(err!.message, /answered 500: three \(after 3 attempts\)/);
    t.is(mk.provider.requests.length - seen, 3);
    mk.provider.replies.length = 0;
  });
}

test.serial('a 429 asking for more than 60 s fails at once, saying so; a 400 or 401 is never retried', async (t) => {
  const seen = mk.provider.requests.length;
  mk.provider.replies.push({ error: 429, retry_after: 3600, message: 'quota exhausted' });
  const err = await t.throwsAsync(mk.generate({ messages }));
  t.like(err, { code: 502, type: 'MODELS_ERR_PROVIDER' });
  t.regex(err!.message, /answered 429: quota exhausted \(it asked to retry after 3600 s, longer than the 60 s a call waits\)/);
  t.is(mk.provider.requests.length - seen, 1);
  mk.provider.replies.push({ error: 400, message: 'bad request' }, { error: 401, message: 'who?' });
  t.like(await t.throwsAsync(mk.generate({ messages })), { type: 'MODELS_ERR_PROVIDER', data: { attempts: 1 } });
  t.like(await t.throwsAsync(mk.generate({ messages })), { type: 'MODELS_ERR_PROVIDER_REJECTED_KEY', data: { attempts: 1 } });
  t.is(mk.provider.requests.length - seen, 3);
});

test.serial('a dropped connection is retried', async (t) => {
  const seen = mk.provider.requests.length;
  mk.provider.replies.push({ reset: true }, { text: 'reconnected' });
  const lines = await mk.generateStream({ messages });
  const [retry] = retries(lines);
  t.like(retry, { attempt: 2, wait_ms: 500 });
  t.regex(retry.reason, /Could not reach openai/);
  t.like(lines.at(-1), { type: 'done', text: 'reconnected', attempts: 2 });
  t.is(mk.provider.requests.length - seen, 2);
});

test.serial('chat retries the same way (one layer)', async (t) => {
  mk.provider.replies.push({ error: 429, retry_after: 0 }, { text: 'chat after retry' });
  t.like(await mk.chat({ messages }), { text: 'chat after retry' });
  mk.provider.replies.push({ error: 500 }, { chunks: ['chat', ' stream'] });
  const lines = await mk.chatStream({ messages });
  t.deepEqual(lines.map((l) => l.type), ['delta', 'delta', 'done'], 'the chat contract has no retry line');
});

test('Retry-After: seconds, an HTTP date, retry-after-ms first; nonsense is ignored', (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  t.is(retryAfterOf({ 'retry-after': '7' }, now), 7000);
  t.is(retryAfterOf({ 'Retry-After': '1.5' }, now), 1500);
  t.is(retryAfterOf({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, now), 30_000);
  t.is(retryAfterOf({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, now), 0, 'a date in the past: at once');
  t.is(retryAfterOf({ 'retry-after-ms': '250', 'retry-after': '9' }, now), 250);
  t.is(retryAfterOf({ 'retry-after': 'soon' }, now), undefined);
  t.is(retryAfterOf({}, now), undefined);
  t.is(retryAfterOf(undefined, now), undefined);
});
