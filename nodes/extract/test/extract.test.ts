import test from 'ava';
import { startAiNodesKernel, type AiNodesKernel } from '../../../test/helpers/ai-nodes.ts';
import { receipt } from '../../../test/workflows-helpers.ts';

let ai: AiNodesKernel;
test.before(async () => {
  ai = await startAiNodesKernel('node_extract');
});
test.after.always(async () => ai?.close());

const schema = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, amount: { type: 'number', minimum: 0 } },
  required: ['name', 'amount'],
  additionalProperties: false,
};
const steps = (config: Record<string, unknown> = {}) => [
  { id: 'extract', type: 'extract', config: { input: '{{trigger.text}}', schema, instructions: 'Amounts are in euros.', ...config }, next: ['use'] },
  { id: 'use', type: 'transform', config: { set: { who: '{{extract.output.data.name}}', repaired: '{{extract.output.repaired}}' } }, next: [] },
];

test.serial('a valid answer: output {data, repaired: false}; one model call, recorded against the run', async (t) => {
  ai.provider.replies.push({ object: { name: 'ACME', amount: 120.5 } });
  const run = await ai.run(steps(), { text: 'Invoice from ACME for 120.50 EUR' });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.like(receipt(run, 'extract').output, { data: { name: 'ACME', amount: 120.5 }, repaired: false, model: 'gpt-test' });
  t.deepEqual(receipt(run, 'use').output, { who: 'ACME', repaired: false });
  const request = ai.provider.requests.at(-1)!.body;
  t.deepEqual(request.response_format?.json_schema?.schema?.required, ['name', 'amount']);
  t.regex(JSON.stringify(request.messages), /Invoice from ACME for 120\.50 EUR/);
  t.regex(JSON.stringify(request.messages), /Amounts are in euros\./);
  t.deepEqual((await ai.modelCalls(run.id)).map((c) => c.purpose), ['node.extract']);
});

test.serial('an invalid answer gets one repair turn naming the problems; the repaired answer is the output', async (t) => {
  ai.provider.replies.push({ object: { name: 'ACME', amount: -3 } });
  ai.provider.replies.push({ object: { name: 'ACME', amount: 3 } });
  const before = ai.provider.requests.length;
  const run = await ai.run(steps(), { text: 'ACME owes us 3' });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.like(receipt(run, 'extract').output, { data: { name: 'ACME', amount: 3 }, repaired: true });
  const requests = ai.provider.requests.slice(before);
  t.is(requests.length, 2);
  const repair = requests[1].body.messages;
  t.deepEqual(repair.map((m: { role: string }) => m.role), ['system', 'user', 'assistant', 'user']);
  t.is(repair[2].content, JSON.stringify({ name: 'ACME', amount: -3 }), 'the rejected answer goes back to the model');
  t.regex(repair[3].content, /amount/, 'the repair turn names the problem');
  t.is((await ai.modelCalls(run.id)).length, 2, 'both turns are recorded');
});

test.serial('still invalid after the repair turn: the step fails with EXTRACT_INVALID naming the errors; no third call', async (t) => {
  ai.provider.replies.push({ object: { name: '' } });
  ai.provider.replies.push({ object: { name: 'ACME', amount: 'lots' } });
  const before = ai.provider.requests.length;
  const run = await ai.run(steps(), { text: 'ACME owes us lots' });
  t.is(run.status, 'failed');
  const error = receipt(run, 'extract').error;
  t.is(error.code, 'EXTRACT_INVALID');
  t.regex(error.message, /after one repair turn/);
  t.regex(error.message, /amount/);
  t.is(ai.provider.requests.length - before, 2);
});

test.serial('a provider error in the first turn fails the step with its reason, no repair', async (t) => {
  ai.provider.replies.push({ error: 503, message: 'overloaded' });
  const before = ai.provider.requests.length;
  const run = await ai.run(steps(), { text: 'x' });
  t.is(run.status, 'failed');
  t.is(receipt(run, 'extract').error.code, 'MODELS_ERR_PROVIDER');
  t.regex(receipt(run, 'extract').error.message, /503: overloaded/);
  t.is(ai.provider.requests.length - before, 1);
});

test.serial('bad configs: no schema or no input refused at save; an unsupported schema keyword fails before any call', async (t) => {
  for (const config of [{ input: 'x' }, { schema }, { input: 'x', schema: 'not a schema' }]) {
    const res = await ai.k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { name: 'bad', steps: [{ id: 'start', type: 'trigger', next: ['e'] }, { id: 'e', type: 'extract', config, next: [] }] } });
    t.is(res.status, 422, JSON.stringify(config));
    t.true(res.body.errors.some((e: { field: string }) => e.field.startsWith('steps.e')), JSON.stringify(res.body.errors));
  }
  const before = ai.provider.requests.length;
  const run = await ai.run([{ id: 'extract', type: 'extract', config: { input: 'x', schema: { type: 'object', $ref: '#/defs/a' } }, next: [] }]);
  t.is(run.status, 'failed');
  t.is(receipt(run, 'extract').error.code, 'INVALID_SCHEMA');
  t.regex(receipt(run, 'extract').error.message, /\$ref/);
  t.is(ai.provider.requests.length, before);
});
