import test from 'ava';
import { startModelsKernel, type ModelsKernel } from './helpers/models-kernel.ts';
import type { ChatErrorLine } from '../kernel/models-contract.ts';

let mk: ModelsKernel;
let openaiKey: { id: string };
let anthropicKey: { id: string };
const OPENAI_SECRET = 'sk-proj-errorsecret-0123456789abcdef';
const ANTHROPIC_SECRET = 'sk-ant-api03-errorsecret-0123456789';
const messages = [{ role: 'user' as const, content: 'Hello?' }];

test.before(async () => {
  // a short model timeout, so the timeout cases end quickly (nothing here asserts on time); no
  // retries: each scripted failure is the call's answer (retries: models-retry.test.ts)
  mk = await startModelsKernel('models_errors', { env: { MODEL_REQUEST_TIMEOUT_SECONDS: '1', MODEL_MAX_RETRIES: '0' } });
  openaiKey = await mk.addKey('owner-token', { name: 'OpenAI', provider: 'openai', api_key: OPENAI_SECRET, default_model: 'gpt-test', is_default: true });
  anthropicKey = await mk.addKey('owner-token', { name: 'Anthropic', provider: 'anthropic', api_key: ANTHROPIC_SECRET, default_model: 'claude-test' });
});
test.after.always(async () => {
  await mk?.close();
});

const keyOf = (provider: 'openai' | 'anthropic') => (provider === 'openai' ? openaiKey.id : anthropicKey.id);
const secretOf = (provider: 'openai' | 'anthropic') => (provider === 'openai' ? OPENAI_SECRET : ANTHROPIC_SECRET);

/** models.chat's error and models.chatStream's error line for the same scripted reply. */
async function bothFailures(provider: 'openai' | 'anthropic', reply: Parameters<typeof mk.provider.replies.push>[0]) {
  mk.provider.replies.push(reply, reply);
  const thrown = (await mk.chat({ messages, api_key_id: keyOf(provider) }).then(
    () => undefined,
    (err: unknown) => err,
  )) as { code: number; type: string; message: string; data: Record<string, unknown> } | undefined;
  const lines = await mk.chatStream({ messages, api_key_id: keyOf(provider) });
  return { thrown, line: lines.at(-1) as ChatErrorLine, lines };
}

// the scripted provider answers requests in order: these tests run one at a time
for (const provider of ['openai', 'anthropic'] as const) {
  test.serial(`${provider}: a 401 or 403 from the provider is 502 MODELS_ERR_PROVIDER_REJECTED_KEY, scrubbed of the key`, async (t) => {
    for (const status of [401, 403]) {
      const { thrown, line } = await bothFailures(provider, { error: status, message: `Incorrect API key provided: ${secretOf(provider)}. Check it.`, type: 'authentication_error' });
      t.like(thrown, { code: 502, type: 'MODELS_ERR_PROVIDER_REJECTED_KEY' }, String(status));
      t.like(thrown!.data, { provider, provider_status: status, api_key_id: keyOf(provider) });
      t.regex(thrown!.message, new RegExp(`answered ${status}: Incorrect API key provided`));
      t.like(line, { type: 'error', status: 502, code: 'MODELS_ERR_PROVIDER_REJECTED_KEY', provider_status: status });
      for (const text of [thrown!.message, JSON.stringify(thrown!.data), line.message]) {
        t.false(text.includes(secretOf(provider)), 'the key is not in the message');
        t.false(text.includes('errorsecret'), 'nor any part of it');
      }
    }
  });

  test.serial(`${provider}: any other provider error status is 502 MODELS_ERR_PROVIDER with the provider's status and message`, async (t) => {
    for (const status of [400, 429, 500, 529]) {
      const { thrown, line } = await bothFailures(provider, { error: status, message: `scripted failure ${status} (Bearer ${secretOf(provider)})` });
      t.like(thrown, { code: 502, type: 'MODELS_ERR_PROVIDER' }, String(status));
      t.like(thrown!.data, { provider_status: status });
      t.regex(thrown!.message, new RegExp(`${provider} answered ${status}: scripted failure ${status}`));
      t.like(line, { type: 'error', status: 502, code: 'MODELS_ERR_PROVIDER', provider_status: status, message: thrown!.message });
      t.false(thrown!.message.includes(secretOf(provider)));
    }
  });

  test.serial(`${provider}: an error event in the middle of the stream fails the call after the deltas sent`, async (t) => {
    const { thrown, line, lines } = await bothFailures(provider, { chunks: ['partial', ' answer'], stream_error: 'Overloaded' });
    t.like(thrown, { code: 502, type: 'MODELS_ERR_PROVIDER' });
    t.regex(thrown!.message, /Overloaded/);
    t.deepEqual(lines.slice(0, -1), [{ type: 'delta', text: 'partial' }, { type: 'delta', text: ' answer' }]);
    t.like(line, { type: 'error', status: 502, code: 'MODELS_ERR_PROVIDER', provider_status: null });
  });

  test.serial(`${provider}: a stream cut before its end, or not JSON, is 502 MODELS_ERR_PROVIDER`, async (t) => {
    const cut = provider === 'openai'
      ? 'data: {"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"half"},"finish_reason":null}]}\n\n'
      : 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"half"}}\n\n';
    const cutFailure = await bothFailures(provider, { raw: { headers: { 'content-type': 'text/event-stream' }, body: cut } });
    t.like(cutFailure.thrown, { code: 502, type: 'MODELS_ERR_PROVIDER' });
    t.regex(cutFailure.thrown!.message, /ended before the answer was complete/);
    t.like(cutFailure.line, { code: 'MODELS_ERR_PROVIDER' });
    const garbage = await bothFailures(provider, { raw: { headers: { 'content-type': 'text/event-stream' }, body: 'data: {not json\n\n' } });
    t.like(garbage.thrown, { code: 502, type: 'MODELS_ERR_PROVIDER' });
    t.regex(garbage.thrown!.message, /not JSON/);
    const html = await bothFailures(provider, { raw: { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad gateway</html>' } });
    t.like(html.thrown, { code: 502, type: 'MODELS_ERR_PROVIDER' });
    t.like(html.thrown!.data, { provider_status: 502 });
  });

  test.serial(`${provider}: no answer within MODEL_REQUEST_TIMEOUT_SECONDS is 504 MODELS_ERR_PROVIDER_TIMEOUT`, async (t) => {
    for (const reply of [{ hang: true as const }, { text: 'never sent', stall_after_headers: true }]) {
      const { thrown, line } = await bothFailures(provider, reply);
      t.like(thrown, { code: 504, type: 'MODELS_ERR_PROVIDER_TIMEOUT' }, JSON.stringify(reply));
      t.regex(thrown!.message, /within 1 s/);
      t.like(line, { type: 'error', status: 504, code: 'MODELS_ERR_PROVIDER_TIMEOUT' });
    }
  });
}

test.serial('a failed call records no usage but still stamps last_used_at', async (t) => {
  const { entity_calls } = (await mk.kernel.stores!.db.query("SELECT count(*)::int AS entity_calls FROM model_calls WHERE entity_id = 'e-1'", { plain: true })) as { entity_calls: number };
  t.is(entity_calls, 0, 'every call of this file failed');
  const key = (await mk.call(`/api/v1/api-keys/${openaiKey.id}`, { token: 'owner-token' })).body;
  t.truthy(key.last_used_at);
});

test.serial('the kernel keeps working after every failure: a good call still answers', async (t) => {
  mk.provider.replies.push({ text: 'still fine' });
  t.like(await mk.chat({ messages }), { text: 'still fine' });
});
