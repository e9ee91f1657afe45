import test from 'ava';
import { referencedSteps, resolveTemplates, type TemplateScope } from '../plugins/workflows/engine/templates.ts';

const scope = (outputs: Record<string, unknown> = {}): TemplateScope => ({
  outputs: new Map(Object.entries(outputs)),
  stepIds: new Set(['fetch', 'shape', ...Object.keys(outputs)]),
  variables: { region: 'eu', limits: { max: 3 } },
  trigger: { body: { who: 'ada', items: [{ id: 7 }] } },
});

test('a whole-string template yields the raw value; paths reach into arrays and objects', (t) => {
  const s = scope({ fetch: { body: { items: [{ id: 'x1' }, { id: 'x2' }] } } });
  t.is(resolveTemplates('{{fetch.output.body.items[1].id}}', s), 'x2');
  t.deepEqual(resolveTemplates('  {{ fetch.output.body }} ', s), { items: [{ id: 'x1' }, { id: 'x2' }] });
  t.deepEqual(resolveTemplates('{{limits}}', s), { max: 3 });
  t.is(resolveTemplates('{{trigger.body.items[0].id}}', s), 7);
  t.is(resolveTemplates('{{nothing.here}}', s), null, 'a missing whole value is null');
});

test('inside a longer string templates are interpolated (objects as JSON, missing as empty)', (t) => {
  const s = scope();
  t.is(resolveTemplates('hi {{trigger.body.who}} in {{region}}: {{limits}}{{missing}}!', s), 'hi ada in eu: {"max":3}!');
  t.is(resolveTemplates('no templates here', s), 'no templates here');
});

test('the same template string resolves against each scope afresh', (t) => {
  t.is(resolveTemplates('{{shape.output.n}}', scope({ shape: { n: 1 } })), 1);
  t.is(resolveTemplates('{{shape.output.n}}', scope({ shape: { n: 2 } })), 2);
  t.is(resolveTemplates('n={{shape.output.n}}', scope({ shape: { n: 3 } })), 'n=3');
  t.is(resolveTemplates('n={{shape.output.n}}', scope({ shape: { n: 4 } })), 'n=4');
});

test('objects and arrays are walked, keys are left alone, the input is not changed', (t) => {
  const config = { '{{region}}': ['{{region}}', { deep: '{{trigger.body.who}}' }], n: 5, flag: true };
  const copy = structuredClone(config);
  t.deepEqual(resolveTemplates(config, scope()), { '{{region}}': ['eu', { deep: 'ada' }], n: 5, flag: true });
  t.deepEqual(config, copy);
});

test('referencedSteps names the steps whose outputs a value reads', (t) => {
  t.deepEqual([...referencedSteps({ a: '{{fetch.output.x}} and {{shape.output}}', b: ['{{trigger.body}}', '{{region}}'] }, new Set(['fetch', 'shape', 'other']))].sort(), ['fetch', 'shape']);
});
