import test from 'ava';
import { QueryTypes } from 'sequelize';
import { kernelOf } from '../kernel/context.ts';
import type { GenerateStreamLine, ToolSpec } from '../kernel/models-generate-contract.ts';
import { startModelsKernel, USERS, type ModelsKernel } from './helpers/models-kernel.ts';

let mk: ModelsKernel;
const keys: Record<'openai' | 'anthropic' | 'openai_compatible', string> = { openai: '', anthropic: '', openai_compatible: '' };
const PROVIDERS = ['openai', 'anthropic'] as const;

test.before(async () => {
  // the scripted provider listens on 127.0.0.1: the openai_compatible key's base_url needs the allow-list
  mk = await startModelsKernel('models_generate', { env: { MODEL_BASE_URL_ALLOW: '127.0.0.1' } });
  keys.openai = (await mk.addKey('owner-token', { name: 'OpenAI', provider: 'openai', api_key: 'sk-gen-openai-0000000000', default_model: 'gpt-test', is_default: true })).id;
  keys.anthropic = (await mk.addKey('owner-token', { name: 'Anthropic', provider: 'anthropic', api_key: 'sk-gen-anthropic-00000000', default_model: 'claude-test' })).id;
  keys.openai_compatible = (await mk.addKey('owner-token', { name: 'Local', provider: 'openai_compatible', api_key: 'local-anything', default_model: 'llama3:8b', base_url: `${mk.provider.url}/v1` })).id;
});
test.after.always(async () => {
  await mk?.close();
});

const user = (content: string) => [{ role: 'user' as const, content }];
const TOOLS: ToolSpec[] = [
  { name: 'search', description: 'Search the workspace', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  { name: 'create_task', description: 'Create a task', parameters: { type: 'object', properties: { title: { type: 'string' }, priority: { type: 'integer' } }, required: ['title'] } },
];
const of = <T extends GenerateStreamLine['type']>(lines: GenerateStreamLine[], type: T) => lines.filter((l): l is Extract<GenerateStreamLine, { type: T }> => l.type === type);

// the scripted provider answers requests in order: the tests of this file run one at a time
for (const provider of [...PROVIDERS, 'openai_compatible'] as const) {
  test.serial(`${provider}: generateStream streams text deltas, then done with finish reason, usage and one attempt`, async (t) => {
    mk.provider.replies.push({ chunks: ['Hel', 'lo ', 'there'], usage: { input_tokens: 7, output_tokens: 3 } });
    const lines = await mk.generateStream({ messages: user('hi'), system: 'Be kind.', api_key_id: keys[provider] });
    t.deepEqual(of(lines, 'text.delta').map((l) => l.text), ['Hel', 'lo ', 'there']);
    t.like(lines.at(-1), { type: 'done', text: 'Hello there', tool_calls: [], finish_reason: 'stop', usage: { input_tokens: 7, output_tokens: 3 }, provider, api_key_id: keys[provider], attempts: 1 });
    const req = mk.provider.requests.at(-1)!;
    t.is(req.api, provider === 'anthropic' ? 'anthropic' : 'openai');
    t.is(req.path, provider === 'anthropic' ? '/v1/messages' : '/v1/chat/completions');
    if (provider === 'openai_compatible') {
      t.is(req.headers.authorization, 'Bearer local-anything');
      t.is(req.body.model, 'llama3:8b');
    }
  });
}

for (const provider of PROVIDERS) {
  test.serial(`${provider}: a tool call streams its arguments in pieces, then the whole call; tools are declared to the provider`, async (t) => {
    mk.provider.replies.push({ text: 'Looking.', tool_calls: [{ id: 'call_a', name: 'search', arguments: { q: 'printer on fire' } }] });
    const lines = await mk.generateStream({ messages: user('find the printer ticket'), tools: TOOLS, api_key_id: keys[provider] });
    const deltas = of(lines, 'tool.call.delta');
    t.true(deltas.length >= 2, 'the arguments arrive in several pieces');
    t.true(deltas.every((d) => d.id === 'call_a' && d.name === 'search'));
    t.deepEqual(JSON.parse(deltas.map((d) => d.args_delta).join('')), { q: 'printer on fire' });
    t.deepEqual(of(lines, 'tool.call').map((l) => l.call), [{ id: 'call_a', name: 'search', arguments: { q: 'printer on fire' } }]);
    t.like(lines.at(-1), { type: 'done', text: 'Looking.', finish_reason: 'tool-calls', tool_calls: [{ id: 'call_a', name: 'search', arguments: { q: 'printer on fire' } }] });
    const body = mk.provider.requests.at(-1)!.body;
    if (provider === 'openai') {
      t.deepEqual(body.tools.map((x: any) => [x.type, x.function.name, x.function.parameters.required]), [['function', 'search', ['q']], ['function', 'create_task', ['title']]]);
    } else {
      t.deepEqual(body.tools.map((x: any) => [x.name, x.input_schema.required]), [['search', ['q']], ['create_task', ['title']]]);
    }
  });

  test.serial(`${provider}: several tool calls in one turn, with text; generate answers them all`, async (t) => {
    mk.provider.replies.push({
      text: 'Two things.',
      tool_calls: [
        { id: 'c1', name: 'search', arguments: { q: 'a' } },
        { id: 'c2', name: 'create_task', arguments: { title: 'Fix it', priority: 2 } },
      ],
      usage: { input_tokens: 30, output_tokens: 12 },
    });
    const turn = await mk.generate({ messages: user('do both'), tools: TOOLS, tool_choice: 'required', api_key_id: keys[provider] });
    t.is(turn.text, 'Two things.');
    t.deepEqual(turn.tool_calls, [
      { id: 'c1', name: 'search', arguments: { q: 'a' } },
      { id: 'c2', name: 'create_task', arguments: { title: 'Fix it', priority: 2 } },
    ]);
    t.like(turn, { finish_reason: 'tool-calls', usage: { input_tokens: 30, output_tokens: 12 }, attempts: 1 });
    const body = mk.provider.requests.at(-1)!.body;
    t.deepEqual(provider === 'openai' ? body.tool_choice : body.tool_choice.type, provider === 'openai' ? 'required' : 'any');
  });

  test.serial(`${provider}: a tool call whose arguments are not JSON gives {} and arguments_error`, async (t) => {
    mk.provider.replies.push({ tool_calls: [{ id: 'bad', name: 'search', arguments: '{"q": "unterminated', chunks: ['{"q": ', '"unterminated'] }] });
    const lines = await mk.generateStream({ messages: user('search'), tools: TOOLS, api_key_id: keys[provider] });
    const [call] = of(lines, 'tool.call').map((l) => l.call);
    t.like(call, { id: 'bad', name: 'search', arguments: {} });
    t.regex(call.arguments_error!, /not JSON: \{"q": "unterminated/);
    t.like(lines.at(-1), { type: 'done', tool_calls: [{ id: 'bad', arguments: {} }] });
  });

  test.serial(`${provider}: the next turn carries the calls and their results in the provider's format`, async (t) => {
    mk.provider.replies.push({ text: 'Done: 3 results.' });
    const turn = await mk.generate({
      api_key_id: keys[provider],
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'c9', name: 'search', arguments: { q: 'it' } }] },
        { role: 'tool', tool_call_id: 'c9', tool_name: 'search', content: { hits: 3 } },
      ],
    });
    t.is(turn.text, 'Done: 3 results.');
    const msgs = mk.provider.requests.at(-1)!.body.messages;
    if (provider === 'openai') {
      t.like(msgs[1], { role: 'assistant', tool_calls: [{ id: 'c9', type: 'function', function: { name: 'search', arguments: '{"q":"it"}' } }] });
      t.like(msgs[2], { role: 'tool', tool_call_id: 'c9' });
      t.deepEqual(JSON.parse(msgs[2].content), { hits: 3 });
    } else {
      t.like(msgs[1].content.find((b: any) => b.type === 'tool_use'), { id: 'c9', name: 'search', input: { q: 'it' } });
      const result = msgs[2].content.find((b: any) => b.type === 'tool_result');
      t.is(result.tool_use_id, 'c9');
      t.regex(JSON.stringify(result.content), /hits/);
    }
  });

  test.serial(`${provider}: structured output: a valid answer is the object; an invalid one is MODELS_ERR_OUTPUT_INVALID with problems`, async (t) => {
    const output = { schema: { type: 'object', properties: { title: { type: 'string' }, done: { type: 'boolean' } }, required: ['title', 'done'], additionalProperties: false }, name: 'task' };
    mk.provider.replies.push({ object: { title: 'Ship it', done: true } });
    const turn = await mk.generate({ messages: user('summarise'), output, api_key_id: keys[provider] });
    t.deepEqual(turn.object, { title: 'Ship it', done: true });
    const body = mk.provider.requests.at(-1)!.body;
    if (provider === 'openai') t.like(body.response_format, { type: 'json_schema', json_schema: { name: 'task', schema: { required: ['title', 'done'] } } });
    else t.truthy(body.output_config?.format?.schema ?? body.tools?.find((x: any) => x.name === 'json'), 'the schema is sent');

    mk.provider.replies.push({ object: { title: 42 } }, { object: { title: 42 } });
    const err = await t.throwsAsync(mk.generate({ messages: user('summarise'), output, api_key_id: keys[provider] }));
    t.like(err, { code: 502, type: 'MODELS_ERR_OUTPUT_INVALID' });
    const data = (err as unknown as { data: { problems: { path: string }[]; text: string } }).data;
    t.deepEqual(data.problems.map((p) => p.path).sort(), ['done', 'title']);
    t.deepEqual(JSON.parse(data.text), { title: 42 });
    const lines = await mk.generateStream({ messages: user('summarise'), output, api_key_id: keys[provider] });
    t.like(lines.at(-1), { type: 'error', status: 502, code: 'MODELS_ERR_OUTPUT_INVALID' });
    t.is((lines.at(-1) as { problems?: unknown[] }).problems?.length, 2);
  });
}

test.serial('files from the object store: an image as an image part, a text file as text; another entity\'s file is 404', async (t) => {
  const objects = kernelOf(mk.kernel.broker).objects;
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
  await objects.put('tests/e-1/pic.png', png, { contentType: 'image/png' });
  await objects.put('tests/e-1/notes.txt', 'The launch is on Friday.', { contentType: 'text/plain' });
  await objects.put('tests/e-2/secret.txt', 'not yours', { contentType: 'text/plain' });
  mk.provider.replies.push({ text: 'I see.' });
  await mk.generate({
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'file', object_key: 'tests/e-1/pic.png', media_type: 'image/png' }, { type: 'file', object_key: 'tests/e-1/notes.txt', media_type: 'text/plain', filename: 'notes.txt' }] }],
  });
  const parts = mk.provider.requests.at(-1)!.body.messages[0].content;
  t.is(parts[0].text, 'What is this?');
  t.is(parts[1].type, 'image_url');
  t.is(parts[1].image_url.url, `data:image/png;base64,${png.toString('base64')}`);
  t.is(parts[2].type, 'text');
  t.regex(parts[2].text, /notes\.txt[\s\S]*The launch is on Friday\./);

  const seen = mk.provider.requests.length;
  for (const key of ['tests/e-2/secret.txt', 'tests/e-1/missing.txt', 'e-1']) {
    const err = await t.throwsAsync(mk.generate({ messages: [{ role: 'user', content: [{ type: 'file', object_key: key, media_type: 'text/plain' }] }] }), undefined, key);
    t.like(err, { code: 404, type: 'NOT_FOUND' }, key);
  }
  t.is(mk.provider.requests.length, seen, 'nothing reached the provider');
});

test.serial('usage is recorded with purpose and attribution; chat records purpose chat', async (t) => {
  mk.provider.replies.push({ text: 'ok', usage: { input_tokens: 100, output_tokens: 5 } }, { text: 'ok', usage: { input_tokens: 1, output_tokens: 1 } });
  await mk.generate({ messages: user('x'), purpose: 'node.llm', workspace_id: 'ws-1', agent_id: 'ag-1', run_id: 'run-1' });
  await mk.chat({ messages: user('y') });
  const rows = await mk.kernel.stores!.db.query<{ purpose: string; workspace_id: string | null; agent_id: string | null; run_id: string | null; input_tokens: number }>(
    "SELECT purpose, workspace_id, agent_id, run_id, input_tokens FROM model_calls WHERE entity_id = 'e-1' ORDER BY created_at DESC, id DESC LIMIT 2",
    { type: QueryTypes.SELECT },
  );
  t.deepEqual(rows, [
    { purpose: 'chat', workspace_id: null, agent_id: null, run_id: null, input_tokens: 1 },
    { purpose: 'node.llm', workspace_id: 'ws-1', agent_id: 'ag-1', run_id: 'run-1', input_tokens: 100 },
  ]);
  const since = new Date(Date.now() - 3_600_000).toISOString();
  const { tokens } = (await mk.kernel.broker.call('models.usageSummary', { entity_id: 'e-1', since })) as { tokens: number };
  t.true(tokens >= 107);
});

test.serial("bad params are 422 naming the field; another entity's key is 404; nothing reaches the provider", async (t) => {
  const seen = mk.provider.requests.length;
  const bad: [string, object, string][] = [
    ['a tool message without its id', { messages: [{ role: 'tool', tool_name: 'search', content: 'x' }] }, 'messages[0].tool_call_id'],
    ['tool_calls on a user message', { messages: [{ role: 'user', content: 'x', tool_calls: [] }] }, 'messages[0].tool_calls'],
    ['a part of unknown type', { messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] }, 'messages[0].content[0].type'],
    ['a file without media type', { messages: [{ role: 'user', content: [{ type: 'file', object_key: 'tests/e-1/a' }] }] }, 'messages[0].content[0].media_type'],
    ['an assistant without text', { messages: [{ role: 'assistant', content: 3 }] }, 'messages[0].content'],
    ['a tool parameters schema that is not an object', { messages: user('x'), tools: [{ name: 'a', description: 'd', parameters: { type: 'string' } }] }, 'tools[0].parameters'],
    ['a tool named twice', { messages: user('x'), tools: [TOOLS[0], TOOLS[0]] }, 'tools[1].name'],
    ['tool_choice naming no declared tool', { messages: user('x'), tools: TOOLS, tool_choice: { tool: 'nope' } }, 'tool_choice.tool'],
    ['an output schema with keywords that cannot be checked', { messages: user('x'), output: { schema: { type: 'object', $ref: '#/x' } } }, 'output.schema'],
  ];
  for (const [label, params, field] of bad) {
    const err = (await t.throwsAsync(mk.generate(params as never), undefined, label)) as unknown as { code: number; type: string; data: { field: string }[] };
    t.like(err, { code: 422, type: 'VALIDATION_FAILED' }, label);
    t.true(err.data.some((d) => d.field === field), `${label}: ${JSON.stringify(err.data)}`);
  }
  for (const params of [{ messages: [] }, { messages: [{ role: 'system', content: 'x' }] }, { messages: user('x'), purpose: 'NOT OK' }, { messages: user('x'), top_k: 1 }]) {
    t.like(await t.throwsAsync(mk.generate(params as never)), { code: 422 }, JSON.stringify(params));
  }
  t.like(await t.throwsAsync(mk.generate({ messages: user('x'), api_key_id: keys.openai }, USERS.other)), { code: 404, type: 'NOT_FOUND' });
  t.like(await t.throwsAsync(mk.generateStream({ messages: user('x'), api_key_id: keys.anthropic }, USERS.other)), { code: 404, type: 'NOT_FOUND' });
  t.like(await t.throwsAsync(mk.generate({ messages: user('x') }, USERS.other)), { code: 422, type: 'MODELS_ERR_NO_KEY' });
  t.is(mk.provider.requests.length, seen);
});
