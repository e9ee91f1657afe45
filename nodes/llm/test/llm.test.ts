import test from 'ava';
import { startAiNodesKernel, type AiNodesKernel } from '../../../test/helpers/ai-nodes.ts';
import { receipt, runUntil } from '../../../test/workflows-helpers.ts';

let ai: AiNodesKernel;
test.before(async () => {
  ai = await startAiNodesKernel('node_llm');
});
test.after.always(async () => ai?.close());

test.serial('text: the prompt and system go to the model; output {text, usage, model}; usage recorded against the run', async (t) => {
  ai.provider.replies.push({ text: 'A short summary.', usage: { input_tokens: 40, output_tokens: 5 } });
  const run = await ai.run([
    { id: 'ask', type: 'llm', config: { prompt: 'Summarise: {{trigger.body}}', system: 'Be brief.' }, next: ['after'] },
    { id: 'after', type: 'transform', config: { set: { summary: '{{ask.output.text}}', model: '{{ask.output.model}}', used_in: '{{ask.output.usage.input_tokens}}', used_out: '{{ask.output.usage.output_tokens}}' } }, next: [] },
  ], { body: 'the printer is on fire' });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  // (the run trace redacts values under keys matching /token/, usage counts included: read them through a transform)
  t.like(receipt(run, 'ask').output, { text: 'A short summary.', model: 'gpt-test' });
  t.deepEqual(receipt(run, 'after').output, { summary: 'A short summary.', model: 'gpt-test', used_in: 40, used_out: 5 });
  const request = ai.provider.requests.at(-1)!.body;
  t.is(request.model, 'gpt-test');
  t.deepEqual(request.messages.map((m: { role: string }) => m.role), ['system', 'user']);
  t.regex(JSON.stringify(request.messages), /Summarise: the printer is on fire/);
  t.regex(JSON.stringify(request.messages), /Be brief\./);
  const calls = await ai.modelCalls(run.id);
  t.is(calls.length, 1);
  t.like(calls[0], { purpose: 'node.llm', workspace_id: ai.workspaceId, input_tokens: 40, output_tokens: 5 });
});

test.serial('json: structured output against the schema; output {json}; model and key chosen by config', async (t) => {
  const other = await ai.k.call('/api/v1/api-keys', { method: 'POST', token: 'owner-token', json: { name: 'Second', provider: 'openai', api_key: 'sk-test-second-0123456789', default_model: 'gpt-second' } });
  t.is(other.status, 201, other.text);
  ai.provider.replies.push({ object: { title: 'Printer fire', urgent: true } });
  const schema = { type: 'object', properties: { title: { type: 'string' }, urgent: { type: 'boolean' } }, required: ['title', 'urgent'], additionalProperties: false };
  const run = await ai.run([{ id: 'ask', type: 'llm', config: { prompt: 'Triage', output: 'json', schema, model: 'gpt-custom', api_key_id: other.body.id }, next: [] }]);
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.like(receipt(run, 'ask').output, { json: { title: 'Printer fire', urgent: true }, model: 'gpt-custom' });
  const request = ai.provider.requests.at(-1)!;
  t.is(request.body.model, 'gpt-custom');
  t.is(request.headers.authorization, 'Bearer sk-test-second-0123456789');
  t.is(request.body.response_format?.type, 'json_schema');
});

test.serial('json: an answer that breaks the schema fails the step naming the problem', async (t) => {
  ai.provider.replies.push({ object: { title: 42 } });
  const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
  const run = await ai.run([{ id: 'ask', type: 'llm', config: { prompt: 'Triage', output: 'json', schema }, next: [] }]);
  t.is(run.status, 'failed');
  t.is(receipt(run, 'ask').error.code, 'MODELS_ERR_OUTPUT_INVALID');
  t.regex(receipt(run, 'ask').error.message, /title/);
});

test.serial('a provider error fails the step with a clear reason, scrubbed of the key', async (t) => {
  ai.provider.replies.push({ error: 500, message: 'upstream exploded while using sk-test-0123456789abcdef' });
  const run = await ai.run([{ id: 'ask', type: 'llm', config: { prompt: 'Hello' }, next: [] }]);
  t.is(run.status, 'failed');
  const error = receipt(run, 'ask').error;
  t.is(error.code, 'MODELS_ERR_PROVIDER');
  t.regex(error.message, /openai answered 500: upstream exploded/);
  t.false(JSON.stringify(run).includes('sk-test-0123456789abcdef'), 'the key never appears in the run');
});

test.serial('no key for the entity: the step fails with MODELS_ERR_NO_KEY, not a crash', async (t) => {
  const run = await ai.run([{ id: 'ask', type: 'llm', config: { prompt: 'Hello' }, next: [] }], {}, { token: 'other-token', workspace_id: null });
  t.is(run.status, 'failed');
  t.is(receipt(run, 'ask').error.code, 'MODELS_ERR_NO_KEY');
});

test.serial("another entity's key is not found: the step fails with NOT_FOUND", async (t) => {
  const before = ai.provider.requests.length;
  const run = await ai.run([{ id: 'ask', type: 'llm', config: { prompt: 'Hello', api_key_id: ai.keyId }, next: [] }], {}, { token: 'other-token', workspace_id: null });
  t.is(run.status, 'failed');
  t.is(receipt(run, 'ask').error.code, 'NOT_FOUND');
  t.is(ai.provider.requests.length, before, 'the provider was never asked with that key');
});

test.serial('bad configs are refused at save naming the field: no prompt, json without schema, unknown output', async (t) => {
  const save = (config: Record<string, unknown>) =>
    ai.k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { name: 'bad', steps: [{ id: 'start', type: 'trigger', next: ['ask'] }, { id: 'ask', type: 'llm', config, next: [] }] } });
  for (const [config, field] of [
    [{}, 'prompt'],
    [{ prompt: 'x', output: 'json' }, 'schema'],
    [{ prompt: 'x', output: 'yaml' }, 'output'],
    [{ prompt: 'x', temperature: 5 }, 'temperature'],
    [{ prompt: 'x', surprise: 1 }, 'surprise'],
  ] as const) {
    const res = await save(config);
    t.is(res.status, 422, JSON.stringify(config));
    t.is(res.body.code, 'WORKFLOWS_ERR_INVALID_DEFINITION');
    t.true(res.body.errors.some((e: { field: string; message: string }) => e.field.startsWith('steps.ask') && `${e.field} ${e.message}`.includes(field)), `${field}: ${JSON.stringify(res.body.errors)}`);
  }
});

test.serial('json with a schema keyword the answer cannot be checked against fails before any model call', async (t) => {
  const before = ai.provider.requests.length;
  const run = await ai.run([{ id: 'ask', type: 'llm', config: { prompt: 'x', output: 'json', schema: { type: 'object', patternProperties: { '^a': {} } } }, next: [] }]);
  t.is(run.status, 'failed');
  t.is(receipt(run, 'ask').error.code, 'INVALID_SCHEMA');
  t.regex(receipt(run, 'ask').error.message, /patternProperties/);
  t.is(ai.provider.requests.length, before);
});

test.serial('config.timeout bounds the step and aborts the model call', async (t) => {
  ai.provider.replies.push({ text: 'never', stall_after_headers: true });
  const run = await ai.run([{ id: 'ask', type: 'llm', config: { prompt: 'Slow', timeout: 0.5 }, next: [] }]);
  t.is(run.status, 'failed');
  t.is(receipt(run, 'ask').error.code, 'STEP_TIMEOUT');
});

test.serial('a run interrupt aborts the model call in flight', async (t) => {
  ai.provider.replies.push({ text: 'never', stall_after_headers: true });
  const wf = await ai.k.createWorkflow('owner-token', { name: 'interrupted', steps: [{ id: 'start', type: 'trigger', next: ['ask'] }, { id: 'ask', type: 'llm', config: { prompt: 'Slow' }, next: [] }] });
  const arrived = ai.provider.nextRequest();
  const started = await ai.k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: 'owner-token', json: { input: {} } });
  t.is(started.status, 202, started.text);
  await arrived;
  await ai.k.kernel.broker.broadcast('workflows.run.interrupt', { run_id: started.body.run_id, reason: 'cancelled by the test' });
  const run = await runUntil(ai.k, 'owner-token', started.body.run_id, ['failed', 'completed']);
  t.is(run.status, 'failed');
  t.is(receipt(run, 'ask').error.code, 'STEP_INTERRUPTED');
  t.regex(receipt(run, 'ask').error.message, /cancelled by the test/);
});
