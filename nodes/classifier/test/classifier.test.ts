import test from 'ava';
import { startAiNodesKernel, type AiNodesKernel } from '../../../test/helpers/ai-nodes.ts';
import { receipt } from '../../../test/workflows-helpers.ts';

let ai: AiNodesKernel;
test.before(async () => {
  ai = await startAiNodesKernel('node_classifier');
});
test.after.always(async () => ai?.close());

const mark = (id: string) => ({ id, type: 'transform', config: { set: { reached: id } }, next: [] });

/** classify -> billing | bug | fallback (other) */
const branching = (extra: Record<string, unknown> = {}) => [
  {
    id: 'classify',
    type: 'classifier',
    config: {
      input: '{{trigger.message}}',
      categories: [{ name: 'billing', description: 'Invoices and payments', next: 'bill' }, { name: 'bug', next: 'triage' }],
      other: 'fallback',
      instructions: 'A failed charge is billing.',
      ...extra,
    },
    next: ['bill', 'triage', 'fallback'],
  },
  mark('bill'),
  mark('triage'),
  mark('fallback'),
];

test.serial('takes the branch of the category the model picks; the others are skipped', async (t) => {
  ai.provider.replies.push({ object: { category: 'bug', confidence: 0.8 } });
  const run = await ai.run(branching(), { message: 'The app crashes on save' });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.like(receipt(run, 'classify').output, { category: 'bug', confidence: 0.8, model: 'gpt-test' });
  t.is(receipt(run, 'triage').status, 'completed');
  t.is(receipt(run, 'bill').status, 'skipped');
  t.is(receipt(run, 'fallback').status, 'skipped');
  const request = ai.provider.requests.at(-1)!.body;
  const schema = request.response_format?.json_schema?.schema;
  t.deepEqual(schema?.properties?.category?.enum, ['billing', 'bug', 'other'], 'the answer is constrained to the names plus other');
  const text = JSON.stringify(request.messages);
  t.regex(text, /Invoices and payments/);
  t.regex(text, /A failed charge is billing\./);
  t.regex(text, /The app crashes on save/);
  const calls = await ai.modelCalls(run.id);
  t.deepEqual(calls.map((c) => c.purpose), ['node.classifier']);
});

test.serial('other: the model finding no category takes the other branch', async (t) => {
  ai.provider.replies.push({ object: { category: 'other', confidence: 0.6 } });
  const run = await ai.run(branching(), { message: 'What is the weather?' });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.like(receipt(run, 'classify').output, { category: 'other', confidence: 0.6 });
  t.is(receipt(run, 'fallback').status, 'completed');
  t.is(receipt(run, 'bill').status, 'skipped');
  t.is(receipt(run, 'triage').status, 'skipped');
});

test.serial('other without an other branch: no branch is taken', async (t) => {
  ai.provider.replies.push({ object: { category: 'other', confidence: 0.4 } });
  const steps = branching({ other: undefined });
  (steps[0] as { next: string[] }).next = ['bill', 'triage'];
  const run = await ai.run(steps.slice(0, 3), { message: 'Hello' });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.is(receipt(run, 'bill').status, 'skipped');
  t.is(receipt(run, 'triage').status, 'skipped');
});

test.serial('a classifier naming no branch only labels: every next runs, and its output feeds them', async (t) => {
  ai.provider.replies.push({ object: { category: 'billing', confidence: 0.9 } });
  const run = await ai.run([
    { id: 'classify', type: 'classifier', config: { input: '{{trigger}}', categories: [{ name: 'billing' }, { name: 'bug' }] }, next: ['label'] },
    { id: 'label', type: 'transform', config: { set: { label: '{{classify.output.category}}' } }, next: [] },
  ], { subject: 'Invoice 42 is wrong' });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.deepEqual(receipt(run, 'label').output, { label: 'billing' });
  t.regex(JSON.stringify(ai.provider.requests.at(-1)!.body.messages), /Invoice 42 is wrong/, 'a non-text input is given as its JSON');
});

test.serial('an answer outside the categories fails the step', async (t) => {
  ai.provider.replies.push({ object: { category: 'sales', confidence: 0.9 } });
  const run = await ai.run(branching(), { message: 'Buy more' });
  t.is(run.status, 'failed');
  t.is(receipt(run, 'classify').error.code, 'MODELS_ERR_OUTPUT_INVALID');
  t.regex(receipt(run, 'classify').error.message, /category/);
});

test.serial('a provider error fails the step with the provider reason', async (t) => {
  ai.provider.replies.push({ error: 429, message: 'rate limited' });
  const run = await ai.run(branching(), { message: 'x' });
  t.is(run.status, 'failed');
  t.is(receipt(run, 'classify').error.code, 'MODELS_ERR_PROVIDER');
  t.regex(receipt(run, 'classify').error.message, /429/);
});

test.serial('bad configs are refused at save: no categories, a category named other, a branch not in next, an unknown key', async (t) => {
  const save = (config: Record<string, unknown>, next = ['a']) =>
    ai.k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { name: 'bad', steps: [{ id: 'start', type: 'trigger', next: ['c'] }, { id: 'c', type: 'classifier', config, next }, mark('a')] } });
  for (const config of [
    { input: 'x', categories: [] },
    { input: 'x' },
    { input: 'x', categories: [{ name: 'other' }] },
    { input: 'x', categories: [{ name: 'a', next: 'nowhere' }] },
    { input: 'x', categories: [{ name: 'a', colour: 'red' }] },
  ]) {
    const res = await save(config);
    t.is(res.status, 422, JSON.stringify(config));
    t.is(res.body.code, 'WORKFLOWS_ERR_INVALID_DEFINITION');
    t.true(res.body.errors.some((e: { field: string }) => e.field.startsWith('steps.c')), JSON.stringify(res.body.errors));
  }
});

test.serial('repeated category names fail the step before any model call', async (t) => {
  const before = ai.provider.requests.length;
  const run = await ai.run([{ id: 'classify', type: 'classifier', config: { input: 'x', categories: [{ name: 'a' }, { name: 'a' }] }, next: [] }]);
  t.is(run.status, 'failed');
  t.is(receipt(run, 'classify').error.code, 'INVALID_CONFIG');
  t.is(ai.provider.requests.length, before);
});
