import test from 'ava';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';
import { startLocalServer, type LocalServer } from './workflows-local-server.ts';

/**
 * Items in the engine: `config.each` on any step (per-element receipts, resume and retry at the
 * first element not done), and the item mode of condition, switch and filter (each branch
 * receives its items, an empty branch is not taken, items keep their origin index).
 */
const TOKEN = 'owner-token';
let k: WorkflowsKernel;
let server: LocalServer;
test.before(async () => {
  server = await startLocalServer();
  k = await startWorkflowsKernel('wf_items', { nodes: ['trigger', 'transform', 'condition', 'switch', 'filter', 'http', 'merge', 'loop'], env: { WORKFLOW_HTTP_ALLOW: '127.0.0.1/32' } });
});
test.after.always(async () => {
  await k?.close();
  await server?.close();
});

async function run(steps: unknown[], input: unknown): Promise<any> {
  const wf = await k.createWorkflow(TOKEN, { name: 'items', steps });
  const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: TOKEN, json: { input, wait: true } });
  return runUntil(k, TOKEN, started.body.run_id ?? started.body.id, ['completed', 'failed', 'paused']);
}

const ROWS = [
  { name: 'ada', amount: 250, kind: 'card' },
  { name: 'bo', amount: 5, kind: 'cash' },
  { name: 'cy', amount: 120, kind: 'card' },
];

test('each runs a step once per element with item and item_index bound; every element has its receipt', async (t) => {
  const done = await run(
    [
      { id: 'start', type: 'trigger', next: ['shape'] },
      { id: 'shape', type: 'transform', config: { each: '{{trigger.rows}}', set: { who: '{{item.name}}', at: '{{item_index}}', label: '#{{item_index}} {{item.name}}' } }, next: [] },
    ],
    { rows: ROWS },
  );
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual(receipt(done, 'shape').output, [
    { who: 'ada', at: 0, label: '#0 ada' },
    { who: 'bo', at: 1, label: '#1 bo' },
    { who: 'cy', at: 2, label: '#2 cy' },
  ]);
  for (const i of [0, 1, 2]) t.is(receipt(done, `shape:each.${i}`)?.status, 'completed', `element ${i} receipt`);
});

test('each over something that is not a list fails the step naming config.each; each on a branching or entry step is refused at save', async (t) => {
  const done = await run(
    [
      { id: 'start', type: 'trigger', next: ['shape'] },
      { id: 'shape', type: 'transform', config: { each: '{{trigger.rows}}', set: {} }, next: [] },
    ],
    { rows: 'not a list' },
  );
  t.is(done.status, 'failed');
  t.is(receipt(done, 'shape').error.code, 'BAD_INPUT');
  t.regex(receipt(done, 'shape').error.message, /config\.each must be a list, got string/);

  const refused = await k.call('/api/v1/workflows', {
    method: 'POST', token: TOKEN,
    json: {
      name: 'bad each',
      steps: [
        { id: 'start', type: 'trigger', config: { each: [1] }, next: ['c'] },
        { id: 'c', type: 'condition', config: { each: [1], expression: true, branches: { true: 'x' } }, next: ['x'] },
        { id: 'x', type: 'transform', config: { each: 'plain text', set: {} }, next: [] },
      ],
    },
  });
  t.is(refused.status, 422, refused.text);
  const fields = refused.body.errors.map((e: { field: string; type: string }) => `${e.field}:${e.type}`);
  t.true(fields.includes('steps.start.config.each:each_not_allowed'), fields.join(' '));
  t.true(fields.includes('steps.c.config.each:each_not_allowed'), fields.join(' '));
  t.true(fields.includes('steps.x.config.each:bad_config'), fields.join(' '));
});

test('a failed element stops the step; the retry keeps the elements done and goes on at the first element without a receipt', async (t) => {
  const base = `${server.url}/flaky/items-${Date.now()}`;
  const done = await run(
    [
      { id: 'start', type: 'trigger', next: ['call'] },
      { id: 'call', type: 'http', config: { each: '{{trigger.paths}}', method: 'GET', url: `${server.url}{{item}}` }, next: [] },
    ],
    { paths: ['/json', '/other', new URL(base).pathname, '/last'] },
  );
  t.is(done.status, 'failed');
  t.is(receipt(done, 'call').error.item_index, 2);
  t.regex(receipt(done, 'call').error.message, /^item 2: /);
  t.is(receipt(done, 'call:each.1').status, 'completed');
  t.falsy(receipt(done, 'call:each.3'), 'nothing ran after the failed element');
  const before = { json: server.hits.get('/json'), other: server.hits.get('/other') };

  const retried = await k.call(`/api/v1/workflows/runs/${done.id}/retry`, { method: 'POST', token: TOKEN, json: {} });
  t.is(retried.status, 202, retried.text);
  const again = await runUntil(k, TOKEN, retried.body.run_id, ['completed', 'failed']);
  t.is(again.status, 'completed', JSON.stringify(again.error));
  t.deepEqual({ json: server.hits.get('/json'), other: server.hits.get('/other') }, before, 'elements 0 and 1 were not called again');
  t.is(server.hits.get(new URL(base).pathname), 2);
  t.is(server.hits.get('/last'), 1);
  t.is(receipt(again, 'call:each.0').carried_from, done.id);
  t.is(receipt(again, 'call').output.length, 4);
});

test('condition in item mode: each side receives its items, an empty side is not taken, paired references find the origin item', async (t) => {
  const done = await run(
    [
      { id: 'start', type: 'trigger', next: ['big'] },
      { id: 'big', type: 'condition', config: { items: '{{trigger.rows}}', conditions: [{ field: 'amount', operator: 'gt', value: 100 }], branches: { true: 'mark', false: 'never' } }, next: ['mark', 'never'] },
      { id: 'mark', type: 'transform', config: { each: '{{big.output.true}}', set: { who: '{{item.name}}', origin: '{{item_origin}}', kind: '{{trigger.rows[$item].kind}}' } }, next: ['again'] },
      { id: 'again', type: 'transform', config: { each: '{{mark.output}}', set: { who: '{{item.who}}', origin: '{{item_origin}}', original: '{{trigger.rows[$item].name}}' } }, next: [] },
      { id: 'never', type: 'transform', config: { set: { ran: true } }, next: [] },
    ],
    { rows: [ROWS[0], ROWS[2]].map((r, i) => ({ ...r, amount: r.amount + i })) },
  );
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.is(receipt(done, 'never').status, 'skipped', 'the false side had no items');
  t.deepEqual(receipt(done, 'big').output.false, []);

  const mixed = await run(
    [
      { id: 'start', type: 'trigger', next: ['big'] },
      { id: 'big', type: 'condition', config: { items: '{{trigger.rows}}', conditions: [{ field: 'amount', operator: 'gt', value: 100 }], branches: { true: 'mark', false: 'small' } }, next: ['mark', 'small'] },
      { id: 'mark', type: 'transform', config: { each: '{{big.output.true}}', set: { who: '{{item.name}}', origin: '{{item_origin}}', kind: '{{trigger.rows[$item].kind}}' } }, next: ['again'] },
      { id: 'again', type: 'transform', config: { each: '{{mark.output}}', set: { who: '{{item.who}}', origin: '{{item_origin}}', original: '{{trigger.rows[$item].name}}', paired: '{{mark.output[$item].kind}}', same: '{{mark.output[$index].who}}' } }, next: [] },
      { id: 'small', type: 'merge', config: { mode: 'array' }, next: [] },
    ],
    { rows: ROWS },
  );
  t.is(mixed.status, 'completed', JSON.stringify(mixed.error));
  t.deepEqual(receipt(mixed, 'mark').output, [{ who: 'ada', origin: 0, kind: 'card' }, { who: 'cy', origin: 2, kind: 'card' }]);
  t.deepEqual(
    receipt(mixed, 'again').output,
    [{ who: 'ada', origin: 0, original: 'ada', paired: 'card', same: 'ada' }, { who: 'cy', origin: 2, original: 'cy', paired: 'card', same: 'cy' }],
    'origins carry through an each step; [$item] finds the element of a routed list by its origin',
  );
  t.deepEqual(receipt(mixed, 'small').output, [[ROWS[1]]], "the false side's input is its items");
});

test('switch in item mode routes each item to its first matching case; filter with branches gives each side its items', async (t) => {
  const done = await run(
    [
      { id: 'start', type: 'trigger', next: ['kind', 'keep'] },
      {
        id: 'kind', type: 'switch',
        config: { items: '{{trigger.rows}}', field: 'kind', cases: [{ equals: 'card', next: 'cards' }, { equals: 'cheque', next: 'cheques' }, { conditions: [{ field: 'amount', operator: 'lt', value: 10 }], next: 'tiny' }], default: 'rest' },
        next: ['cards', 'cheques', 'tiny', 'rest'],
      },
      { id: 'cards', type: 'merge', config: { mode: 'array' }, next: [] },
      { id: 'cheques', type: 'merge', config: { mode: 'array' }, next: [] },
      { id: 'tiny', type: 'merge', config: { mode: 'array' }, next: [] },
      { id: 'rest', type: 'merge', config: { mode: 'array' }, next: [] },
      { id: 'keep', type: 'filter', config: { items: '{{trigger.rows}}', conditions: [{ field: 'name', operator: 'ne', value: 'bo' }], branches: { kept: 'kept' } }, next: ['kept'] },
      { id: 'kept', type: 'transform', config: { each: '{{keep.output.kept}}', set: { origin: '{{item_origin}}' } }, next: [] },
    ],
    { rows: ROWS },
  );
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual(receipt(done, 'kind').output, { case_0: [ROWS[0], ROWS[2]], case_1: [], case_2: [ROWS[1]], default: [] });
  t.deepEqual(receipt(done, 'cards').output, [[ROWS[0], ROWS[2]]]);
  t.deepEqual(receipt(done, 'tiny').output, [[ROWS[1]]]);
  t.is(receipt(done, 'cheques').status, 'skipped');
  t.is(receipt(done, 'rest').status, 'skipped');
  t.deepEqual(receipt(done, 'kept').output, [{ origin: 0 }, { origin: 2 }]);
});

test('each_flat: an element answering a list gives its elements as items, each keeping its element\'s origin', async (t) => {
  const done = await run(
    [
      { id: 'start', type: 'trigger', next: ['spread'] },
      { id: 'spread', type: 'merge', config: { each: '{{trigger.rows}}', each_flat: true, mode: 'append', lists: ['{{item.tags}}'] }, next: ['label'] },
      { id: 'label', type: 'transform', config: { each: '{{spread.output}}', set: { tag: '{{item}}', of: '{{trigger.rows[$item].name}}' } }, next: [] },
    ],
    { rows: [{ name: 'ada', tags: ['x', 'y'] }, { name: 'bo', tags: [] }, { name: 'cy', tags: ['z'] }] },
  );
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual(receipt(done, 'spread').output, ['x', 'y', 'z']);
  t.deepEqual(receipt(done, 'label').output, [{ tag: 'x', of: 'ada' }, { tag: 'y', of: 'ada' }, { tag: 'z', of: 'cy' }]);
  const refused = await k.call('/api/v1/workflows', { method: 'POST', token: TOKEN, json: { name: 'flat alone', steps: [{ id: 'start', type: 'trigger', next: ['x'] }, { id: 'x', type: 'transform', config: { each_flat: true, set: {} }, next: [] }] } });
  t.is(refused.status, 422);
  t.true(refused.body.errors.some((e: { field: string }) => e.field === 'steps.x.config.each_flat'), refused.text);
});
