import test from 'ava';
import { startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';
import { startScriptedProvider } from './helpers/scripted-provider.ts';

type Provider = Awaited<ReturnType<typeof startScriptedProvider>>;
let k: WorkflowsKernel;
let provider: Provider;

test.before(async () => {
  provider = await startScriptedProvider();
  k = await startWorkflowsKernel('wf_ai_edit', { plugins: ['models'], env: { MODEL_OPENAI_BASE_URL: `${provider.url}/v1`, MODEL_ANTHROPIC_BASE_URL: provider.url } });
});
test.after.always(async () => {
  await k?.close();
  await provider?.close();
});

interface SseEvent { event: string; data: any }

/** POST /ai-edit and read the whole event stream. */
async function aiEdit(json: Record<string, unknown>, token = 'owner-token'): Promise<{ status: number; type: string | null; events: SseEvent[]; body: any }> {
  const res = await fetch(`${k.kernel.apiUrl}/api/v1/workflows/ai-edit`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(json) });
  const text = await res.text();
  const type = res.headers.get('content-type');
  if (!type?.startsWith('text/event-stream')) return { status: res.status, type, events: [], body: JSON.parse(text) };
  const events = text.split('\n\n').filter((b) => b.includes('event: ')).map((block) => {
    const lines = block.split('\n');
    return { event: lines.find((l) => l.startsWith('event: '))!.slice(7), data: JSON.parse(lines.find((l) => l.startsWith('data: '))!.slice(6)) };
  });
  return { status: res.status, type, events, body: null };
}

const fenced = (definition: unknown) => `Here it is.\n\`\`\`json\n${JSON.stringify(definition, null, 1)}\n\`\`\``;
const HELLO = {
  name: 'Greeter',
  description: 'Greets whoever calls',
  steps: [
    { id: 'start', type: 'webhook', name: 'Incoming', config: {}, next: ['greet'] },
    { id: 'greet', type: 'transform', name: 'Greeting', config: { set: { message: 'Hello {{trigger.body.name}}' } }, next: ['answer'] },
    { id: 'answer', type: 'respond', name: 'Answer', config: { status: 200, body: '{{greet.output}}' }, next: [] },
  ],
  variables: {},
};

async function definitionCount(token = 'owner-token'): Promise<number> {
  return (await k.call('/api/v1/workflows', { token })).body.total;
}

test.serial('without a model provider key the request is refused before any stream, naming the fix', async (t) => {
  const res = await aiEdit({ prompt: 'greet callers' });
  t.is(res.status, 422, JSON.stringify(res.body));
  t.is(res.body.code, 'MODELS_ERR_NO_KEY');
  t.is(provider.requests.length, 0);
});

test.serial('a request becomes a validated proposal streamed as SSE, and nothing is stored until saved', async (t) => {
  const key = await k.call('/api/v1/api-keys', { method: 'POST', token: 'owner-token', json: { name: 'main', provider: 'openai', api_key: 'sk-test-0123456789abcdef', default_model: 'gpt-test', is_default: true } });
  t.is(key.status, 201, key.text);
  const before = await definitionCount();
  const text = fenced(HELLO);
  provider.replies.push({ chunks: [text.slice(0, 20), text.slice(20, 90), text.slice(90)] });
  const res = await aiEdit({ prompt: 'A webhook that answers Hello and the caller name' });
  t.is(res.status, 200);
  t.deepEqual(res.events.map((e) => e.event), ['ai.started', 'ai.delta', 'ai.delta', 'ai.delta', 'ai.proposal']);
  t.like(res.events[0].data, { mode: 'generate', base: null });
  t.is(res.events.filter((e) => e.event === 'ai.delta').map((e) => e.data.text).join(''), text);
  const proposal = res.events.at(-1)!.data;
  t.like(proposal, { valid: true, problems: [], rounds: 1, model: 'gpt-test', changes: { added: ['start', 'greet', 'answer'], removed: [], changed: [] } });
  t.deepEqual(proposal.definition.steps.map((s: { id: string }) => s.id), ['start', 'greet', 'answer']);

  const sent = provider.requests.at(-1)!;
  t.is(sent.api, 'openai');
  t.is(sent.headers.authorization, 'Bearer sk-test-0123456789abcdef');
  const system = (sent.body as any).messages.find((m: { role: string }) => m.role === 'system').content as string;
  t.regex(system, /"type":"transform"/);
  t.regex(system, /"type":"http"/);
  t.regex(system, /exactly one entry step/);
  t.regex((sent.body as any).messages.at(-1).content, /answers Hello/);

  t.is(await definitionCount(), before, 'nothing stored by ai-edit');
  const saved = await k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: proposal.definition });
  t.is(saved.status, 201, saved.text);
});

test.serial('an edit of a saved workflow that would not save goes back to the model with its problems, then is proposed', async (t) => {
  const wf = await k.createWorkflow('owner-token', HELLO);
  const broken = { ...HELLO, steps: [...HELLO.steps.slice(0, 2).map((s) => (s.id === 'greet' ? { ...s, next: ['shout'] } : s)), { id: 'shout', type: 'transform', config: { set: 'not an object' }, next: ['nowhere'] }] };
  const fixed = { ...HELLO, steps: [HELLO.steps[0], { ...HELLO.steps[1], config: { set: { message: 'HELLO {{trigger.body.name}}' } } }, HELLO.steps[2]] };
  provider.replies.push({ text: fenced(broken) }, { text: fenced(fixed) });
  const res = await aiEdit({ prompt: 'shout the greeting', workflow_id: wf.id });
  t.is(res.status, 200);
  t.like(res.events[0].data, { mode: 'edit', base: { workflow_id: wf.id, version: 1 } });
  const round = res.events.find((e) => e.event === 'ai.round')!.data;
  t.is(round.round, 1);
  const fields = round.problems.map((p: { field: string }) => p.field).join(' ');
  t.regex(fields, /shout/);
  const repair = (provider.requests.at(-1)!.body as any).messages;
  t.is(repair.at(-2).role, 'assistant');
  t.regex(repair.at(-1).content, /cannot be saved/);
  t.regex(repair.at(-1).content, /nowhere/);
  t.regex((provider.requests.at(-2)!.body as any).messages.at(-1).content, /"id": "greet"/, 'the base definition is given to the model');
  const proposal = res.events.at(-1)!.data;
  t.is(res.events.at(-1)!.event, 'ai.proposal');
  t.like(proposal, { valid: true, rounds: 2, changes: { added: [], removed: [], changed: ['greet'] } });
  const stored = await k.call(`/api/v1/workflows/${wf.id}`, { token: 'owner-token' });
  t.is(stored.body.version, 1, 'the saved workflow is untouched');
});

test.serial('a model that never writes a valid definition ends with an invalid proposal and its problems', async (t) => {
  provider.replies.push({ text: 'I would rather not.' }, { text: fenced({ name: 'x', steps: [] }) }, { text: fenced({ name: 'x', steps: [{ id: 'a', type: 'no-such-type' }] }) });
  const res = await aiEdit({ prompt: 'something' });
  const proposal = res.events.at(-1)!.data;
  t.is(res.events.at(-1)!.event, 'ai.proposal');
  t.is(res.events.filter((e) => e.event === 'ai.round').length, 2);
  t.like(proposal, { valid: false, rounds: 3 });
  t.true(proposal.problems.some((p: { message: string }) => /no-such-type/.test(p.message)), JSON.stringify(proposal.problems));
});

test.serial('a draft in the body is the base, and a provider failure mid-stream ends with ai.error', async (t) => {
  provider.replies.push({ chunks: ['Working on'], stream_error: 'overloaded' });
  const res = await aiEdit({ prompt: 'add a note', definition: HELLO });
  t.is(res.status, 200);
  t.like(res.events[0].data, { mode: 'edit', base: null });
  t.is(res.events.at(-1)!.event, 'ai.error');
  t.regex(res.events.at(-1)!.data.code, /^MODELS_ERR/);
  t.false(res.events.some((e) => e.event === 'ai.proposal'));
});

test.serial('bad input is a 422 naming the field; another entity\'s workflow or key is 404', async (t) => {
  const missing = await aiEdit({});
  t.is(missing.status, 422);
  t.true(JSON.stringify(missing.body).includes('prompt'));
  const long = await aiEdit({ prompt: 'x'.repeat(8001) });
  t.is(long.status, 422);
  const wrongType = await aiEdit({ prompt: 'x', definition: 'not an object' });
  t.is(wrongType.status, 422);
  t.true(JSON.stringify(wrongType.body).includes('definition'));
  const badSteps = await aiEdit({ prompt: 'x', definition: { name: 'w', steps: 'not a list' } });
  t.is(badSteps.status, 422);
  t.true(JSON.stringify(badSteps.body).includes('definition.steps'));
  const wf = await k.createWorkflow('owner-token', HELLO);
  const calls = provider.requests.length;
  const foreign = await aiEdit({ prompt: 'x', workflow_id: wf.id }, 'other-token');
  t.is(foreign.status, 404);
  const keys = await k.call('/api/v1/api-keys', { token: 'owner-token' });
  const foreignKey = await aiEdit({ prompt: 'x', api_key_id: keys.body.items[0].id }, 'other-token');
  t.is(foreignKey.status, 404);
  t.is(provider.requests.length, calls, 'the provider was never called');
  const anonymous = await fetch(`${k.kernel.apiUrl}/api/v1/workflows/ai-edit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"x"}' });
  t.is(anonymous.status, 401);
});
