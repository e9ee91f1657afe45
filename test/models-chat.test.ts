import test from 'ava';
import { QueryTypes } from 'sequelize';
import { startModelsKernel, USERS, type ModelsKernel } from './helpers/models-kernel.ts';
import { eventually } from './helpers/eventually.ts';
import type { ChatDoneLine, ChatStreamLine } from '../kernel/models-contract.ts';

let mk: ModelsKernel;
let openaiKey: { id: string };
let anthropicKey: { id: string };
const OPENAI_SECRET = 'sk-openai-secret-000000000000';
const ANTHROPIC_SECRET = 'sk-ant-secret-1111111111111111';

test.before(async () => {
  mk = await startModelsKernel('models_chat');
  openaiKey = await mk.addKey('owner-token', { name: 'OpenAI', provider: 'openai', api_key: OPENAI_SECRET, default_model: 'gpt-test', is_default: true });
  anthropicKey = await mk.addKey('owner-token', { name: 'Anthropic', provider: 'anthropic', api_key: ANTHROPIC_SECRET, default_model: 'claude-test' });
});
test.after.always(async () => {
  await mk?.close();
});

const messages = [
  { role: 'user' as const, content: 'Hello?' },
  { role: 'assistant' as const, content: 'Hi.' },
  { role: 'user' as const, content: 'Say something.' },
];

// the scripted provider answers requests in order: the tests of this file run one at a time
test.serial('openai: chat streams from {base}/chat/completions with a bearer key and answers text, model and usage', async (t) => {
  mk.provider.replies.push({ chunks: ['Hel', 'lo ', 'world'], model: 'gpt-test-2025', usage: { input_tokens: 21, output_tokens: 3 } });
  const result = await mk.chat({ messages, system: 'Be brief.', temperature: 0.2 });
  t.deepEqual(result, { text: 'Hello world', model: 'gpt-test-2025', provider: 'openai', api_key_id: openaiKey.id, usage: { input_tokens: 21, output_tokens: 3 } });
  const req = mk.provider.requests.at(-1)!;
  t.is(req.api, 'openai');
  t.is(req.path, '/v1/chat/completions');
  t.is(req.headers.authorization, `Bearer ${OPENAI_SECRET}`);
  t.is(req.headers['x-api-key'], undefined);
  t.deepEqual(req.body, {
    model: 'gpt-test',
    messages: [{ role: 'system', content: 'Be brief.' }, ...messages],
    stream: true,
    stream_options: { include_usage: true },
    temperature: 0.2,
  });
});

test.serial('anthropic: chat streams from {base}/v1/messages with x-api-key, version, top-level system and max_tokens', async (t) => {
  mk.provider.replies.push({ chunks: ['Bonjour', ', ', 'le monde'], usage: { input_tokens: 9, output_tokens: 4 } });
  const result = await mk.chat({ messages, system: 'Be French.', api_key_id: anthropicKey.id });
  t.deepEqual(result, { text: 'Bonjour, le monde', model: 'claude-test', provider: 'anthropic', api_key_id: anthropicKey.id, usage: { input_tokens: 9, output_tokens: 4 } });
  const req = mk.provider.requests.at(-1)!;
  t.is(req.api, 'anthropic');
  t.is(req.path, '/v1/messages');
  t.is(req.headers['x-api-key'], ANTHROPIC_SECRET);
  t.is(req.headers['anthropic-version'], '2023-06-01');
  t.is(req.headers.authorization, undefined);
  t.like(req.body, { model: 'claude-test', max_tokens: 4096, system: [{ type: 'text', text: 'Be French.' }], stream: true });
  t.deepEqual(req.body.messages.map((m: { role: string; content: { text: string }[] }) => [m.role, m.content.map((c) => c.text).join('')]), messages.map((m) => [m.role, m.content]));
  t.false(req.body.messages.some((m: { role: string }) => m.role === 'system'), 'no system message in messages');
});

test.serial('the model and max_tokens given override the key\'s defaults', async (t) => {
  mk.provider.replies.push({ text: 'ok' }, { text: 'ok' });
  await mk.chat({ messages, api_key_id: anthropicKey.id, model: 'claude-other', max_tokens: 50 });
  t.like(mk.provider.requests.at(-1)!.body, { model: 'claude-other', max_tokens: 50 });
  await mk.chat({ messages, model: 'gpt-other', max_tokens: 70 });
  t.like(mk.provider.requests.at(-1)!.body, { model: 'gpt-other', max_tokens: 70 });
});

for (const provider of ['openai', 'anthropic'] as const) {
  test.serial(`${provider}: chatStream sends NDJSON deltas whose join is the text, then one done line`, async (t) => {
    const chunks = ['One', ' two', ' three', ' four'];
    mk.provider.replies.push({ chunks, usage: { input_tokens: 5, output_tokens: 4 } });
    const apiKeyId = provider === 'openai' ? openaiKey.id : anthropicKey.id;
    const lines = await mk.chatStream({ messages, system: 'Count.', api_key_id: apiKeyId });
    const deltas = lines.filter((l): l is Extract<ChatStreamLine, { type: 'delta' }> => l.type === 'delta');
    t.deepEqual(deltas.map((d) => d.text), chunks);
    t.is(lines.length, chunks.length + 1);
    const done = lines.at(-1) as ChatDoneLine;
    t.is(done.type, 'done');
    t.is(done.text, deltas.map((d) => d.text).join(''));
    t.like(done, { provider, api_key_id: apiKeyId, usage: { input_tokens: 5, output_tokens: 4 }, model: provider === 'openai' ? 'gpt-test' : 'claude-test' });
    const req = mk.provider.requests.at(-1)!;
    if (provider === 'openai') t.deepEqual(req.body.messages[0], { role: 'system', content: 'Count.' });
    else t.deepEqual(req.body.system, [{ type: 'text', text: 'Count.' }]);
  });
}

test.serial('a server that answers one JSON completion instead of a stream is read too', async (t) => {
  mk.provider.replies.push({ text: 'plain answer', stream: false, usage: { input_tokens: 2, output_tokens: 2 } });
  t.like(await mk.chat({ messages }), { text: 'plain answer', usage: { input_tokens: 2, output_tokens: 2 } });
  mk.provider.replies.push({ text: 'plain answer', stream: false, usage: { input_tokens: 2, output_tokens: 2 } });
  t.like(await mk.chat({ messages, api_key_id: anthropicKey.id }), { text: 'plain answer', usage: { input_tokens: 2, output_tokens: 2 } });
});

test.serial('use stamps last_used_at; usageSummary counts the tokens of the entity', async (t) => {
  const before = (await mk.call(`/api/v1/api-keys/${anthropicKey.id}`, { token: 'owner-token' })).body;
  t.truthy(before.last_used_at, 'earlier calls stamped it');
  mk.provider.replies.push({ text: 'x', usage: { input_tokens: 1000, output_tokens: 234 } });
  const callStarted = Date.now();
  await mk.chat({ messages, api_key_id: anthropicKey.id });
  // the stamp is written beside the call, not before it
  const after = await eventually(async () => {
    const key = (await mk.call(`/api/v1/api-keys/${anthropicKey.id}`, { token: 'owner-token' })).body;
    return Date.parse(key.last_used_at) >= callStarted ? key : undefined;
  });
  t.truthy(after, 'this call stamped last_used_at');
  t.is(after.updated_at, before.updated_at, 'use is not an update of the key');
  const since = new Date(Date.now() - 3_600_000).toISOString();
  const [{ total }] = await mk.kernel.stores!.db.query<{ total: string }>("SELECT SUM(input_tokens + output_tokens)::text AS total FROM model_calls WHERE entity_id = 'e-1'", { type: QueryTypes.SELECT });
  t.deepEqual(await mk.kernel.broker.call('models.usageSummary', { entity_id: 'e-1', since }), { tokens: Number(total) });
  t.true(Number(total) >= 1234);
  t.deepEqual(await mk.kernel.broker.call('models.usageSummary', { entity_id: 'e-2', since }), { tokens: 0 });
});

test.serial('after rotate the provider sees the new key, never the old one', async (t) => {
  const key = await mk.addKey('owner-token', { name: 'Rotated', provider: 'anthropic', api_key: 'sk-ant-old-aaaaaaaaaaaaaaaa', default_model: 'claude-test' });
  mk.provider.replies.push({ text: 'old' });
  await mk.chat({ messages, api_key_id: key.id });
  t.is(mk.provider.requests.at(-1)!.headers['x-api-key'], 'sk-ant-old-aaaaaaaaaaaaaaaa');
  const rotated = await mk.call(`/api/v1/api-keys/${key.id}/rotate`, { method: 'POST', token: 'admin-token', json: { api_key: 'sk-ant-new-bbbbbbbbbbbbbbbb' } });
  t.is(rotated.status, 200);
  const seen = mk.provider.requests.length;
  mk.provider.replies.push({ text: 'new' }, { chunks: ['new'] });
  await mk.chat({ messages, api_key_id: key.id });
  await mk.chatStream({ messages, api_key_id: key.id });
  const after = mk.provider.requests.slice(seen);
  t.is(after.length, 2);
  t.deepEqual(after.map((r) => r.headers['x-api-key']), ['sk-ant-new-bbbbbbbbbbbbbbbb', 'sk-ant-new-bbbbbbbbbbbbbbbb']);
});

test.serial("another entity's key is 404; no key at all is MODELS_ERR_NO_KEY; bad params are 422", async (t) => {
  const seen = mk.provider.requests.length;
  const foreign = await t.throwsAsync(mk.chat({ messages, api_key_id: openaiKey.id }, USERS.other));
  t.like(foreign, { code: 404, type: 'NOT_FOUND' });
  const foreignStream = await t.throwsAsync(mk.chatStream({ messages, api_key_id: openaiKey.id }, USERS.other));
  t.like(foreignStream, { code: 404, type: 'NOT_FOUND' });
  const noKey = await t.throwsAsync(mk.chat({ messages }, USERS.other));
  t.like(noKey, { code: 422, type: 'MODELS_ERR_NO_KEY' });
  t.regex(noKey!.message, /POST \/api\/v1\/api-keys/);
  t.like(await t.throwsAsync(mk.chatStream({ messages }, USERS.other)), { code: 422, type: 'MODELS_ERR_NO_KEY' });
  t.like(await t.throwsAsync(mk.chat({ messages }, {})), { code: 401, type: 'UNAUTHORIZED' }, 'no user, no entity');
  const bad: [string, object][] = [
    ['no messages', { messages: [] }],
    ['a system role in messages', { messages: [{ role: 'system', content: 'x' }] }],
    ['content not a string', { messages: [{ role: 'user', content: 42 }] }],
    ['an unknown message field', { messages: [{ role: 'user', content: 'x', name: 'n' }] }],
    ['max_tokens zero', { messages, max_tokens: 0 }],
    ['temperature 3', { messages, temperature: 3 }],
    ['an unknown param', { messages, top_k: 3 }],
  ];
  for (const [label, params] of bad) {
    const err = await t.throwsAsync(mk.chat(params as never), undefined, label);
    t.like(err, { code: 422 }, label);
  }
  t.is(mk.provider.requests.length, seen, 'none of these reached the provider');
});

test.serial('the member of the entity may use its keys', async (t) => {
  mk.provider.replies.push({ text: 'for members too' });
  t.like(await mk.chat({ messages }, USERS.member), { text: 'for members too', api_key_id: openaiKey.id });
});
