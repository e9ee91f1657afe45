import test from 'ava';
import { startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';
import { ImportError } from '../plugins/workflows/import/graph.ts';
import { importN8n } from '../plugins/workflows/import/n8n.ts';
import { importNodeRed } from '../plugins/workflows/import/node-red.ts';
import { importMake } from '../plugins/workflows/import/make.ts';

let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_import');
});
test.after.always(async () => k?.close());

/** Every problem detail an import answered, checked at the end for leaked internals. */
const details: string[] = [];
const importing = async (json: Record<string, unknown>, token = 'owner-token') => {
  const res = await k.call('/api/v1/workflows/import', { method: 'POST', token, json });
  if (typeof res.body?.detail === 'string') details.push(res.body.detail);
  return res;
};
type Warning = { source: string; message: string };

/** An n8n export as n8n writes it: webhook -> Set -> IF -> two Respond to Webhook nodes, plus a node we do not have. */
const N8N = {
  name: 'Order triage',
  nodes: [
    { id: 'a1', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], parameters: { path: 'orders', httpMethod: 'POST', responseMode: 'responseNode' } },
    {
      id: 'a2', name: 'Shape order', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: [200, 0],
      parameters: { assignments: { assignments: [{ id: 'x', name: 'amount', value: '={{ $json.body.amount }}', type: 'number' }, { id: 'y', name: 'who', value: "={{ $('Webhook').item.json.body.customer }}", type: 'string' }] } },
    },
    {
      id: 'a3', name: 'Big order?', type: 'n8n-nodes-base.if', typeVersion: 2, position: [400, 0],
      parameters: { conditions: { conditions: [{ leftValue: '={{ $json.amount }}', rightValue: 100, operator: { type: 'number', operation: 'gt' } }] } },
    },
    { id: 'a4', name: 'Respond big', type: 'n8n-nodes-base.respondToWebhook', typeVersion: 1, position: [600, -100], parameters: { respondWith: 'json', responseBody: '{"tier":"big"}', options: { responseCode: 201 } } },
    { id: 'a5', name: 'Respond small', type: 'n8n-nodes-base.respondToWebhook', typeVersion: 1, position: [600, 100], parameters: { respondWith: 'json', responseBody: '{"tier":"small"}' } },
    { id: 'a6', name: 'Slack', type: 'n8n-nodes-base.slack', typeVersion: 2, position: [800, -100], parameters: { text: 'big order' } },
    { id: 'a7', name: 'Sticky Note', type: 'n8n-nodes-base.stickyNote', typeVersion: 1, position: [0, -200], parameters: { content: 'Orders come in here' } },
  ],
  connections: {
    Webhook: { main: [[{ node: 'Shape order', type: 'main', index: 0 }]] },
    'Shape order': { main: [[{ node: 'Big order?', type: 'main', index: 0 }]] },
    'Big order?': { main: [[{ node: 'Respond big', type: 'main', index: 0 }], [{ node: 'Respond small', type: 'main', index: 0 }]] },
    'Respond big': { main: [[{ node: 'Slack', type: 'main', index: 0 }]] },
  },
};

test.serial('an n8n export becomes a saved definition that runs: branches, expressions and responses carried over', async (t) => {
  const res = await importing({ format: 'n8n', data: N8N });
  t.is(res.status, 201, res.text);
  const wf = res.body.workflow;
  t.is(wf.name, 'Order triage');
  t.is(wf.trigger_type, 'webhook');
  const byId = Object.fromEntries(wf.steps.map((s: { id: string }) => [s.id, s]));
  t.deepEqual(Object.keys(byId).sort(), ['big_order', 'respond_big', 'respond_small', 'shape_order', 'slack', 'sticky_note', 'webhook']);
  t.deepEqual(byId.shape_order.config, { each: ['{{webhook.output}}'], set: { amount: '{{item.body.amount}}', who: '{{webhook.output.body.customer}}' }, types: { amount: 'number', who: 'string' } });
  t.deepEqual(byId.big_order.config, {
    items: '{{shape_order.output}}', conditions: [{ field: 'amount', operator: 'gt', value: 100 }], combine: 'and', branches: { true: ['respond_big'], false: ['respond_small'] },
  });
  t.is(byId.slack.type, 'note');
  t.true(res.body.warnings.some((w: { source: string; message: string }) => w.source === 'Slack' && /app integration node \(slack\)/.test(w.message)));
  t.like(res.body.report.find((r: { source: string }) => r.source === 'Slack'), { status: 'unmapped', step_id: 'slack' });
  t.like(res.body.report.find((r: { source: string }) => r.source === 'Big order?'), { status: 'mapped', items: '{{big_order.output.true}}' });
  t.true(res.body.mapping.some((m: { source: string; step_id: string; source_id: string }) => m.source === 'Big order?' && m.step_id === 'big_order' && m.source_id === 'Big order?'));

  // the imported workflow really runs behind a webhook binding
  const workspaceId = await k.createWorkspace('owner-token');
  const binding = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: 'owner-token', json: { workflow_id: wf.id, workspace_id: workspaceId, trigger: 'webhook' } });
  t.is(binding.status, 201, binding.text);
  const hook = (body: unknown) => k.call(`/api/v1/workflows/webhook/${binding.body.webhook_token}`, { method: 'POST', json: body });
  const big = await hook({ amount: 250, customer: 'ada' });
  t.is(big.status, 201, big.text);
  t.deepEqual(big.body, { tier: 'big' });
  const small = await hook({ amount: 5, customer: 'bob' });
  t.is(small.status, 200);
  t.deepEqual(small.body, { tier: 'small' });
});

test.serial('save: false answers the draft and stores nothing; the export may be sent as JSON text', async (t) => {
  const before = (await k.call('/api/v1/workflows', { token: 'owner-token' })).body.total;
  const res = await importing({ format: 'n8n', data: JSON.stringify(N8N), save: false, name: 'Draft only' });
  t.is(res.status, 200, res.text);
  t.is(res.body.definition.name, 'Draft only');
  t.is(res.body.definition.steps.length, 7);
  t.false(res.body.warnings.some((w: Warning) => /several conditions/.test(w.message)), 'a v2 IF with one condition has one');
  t.is((await k.call('/api/v1/workflows', { token: 'owner-token' })).body.total, before);
});

/** A Node-RED export: two tabs; http in -> change -> switch (== and otherwise) -> http response, a function node, a comment. */
const NODE_RED = [
  { id: 't1', type: 'tab', label: 'Greeter', disabled: false, info: '' },
  { id: 't2', type: 'tab', label: 'Other flow', disabled: false, info: '' },
  { id: 'n1', type: 'http in', z: 't1', name: 'POST /greet', url: '/greet', method: 'post', wires: [['n2']] },
  { id: 'n2', type: 'change', z: 't1', name: 'Set greeting', rules: [{ t: 'set', p: 'payload.greeting', pt: 'msg', to: 'hello', tot: 'str' }], wires: [['n3']] },
  { id: 'n3', type: 'switch', z: 't1', name: 'Which language', property: 'payload.lang', rules: [{ t: 'eq', v: 'fr', vt: 'str' }, { t: 'else' }], wires: [['n4'], ['n5']] },
  { id: 'n4', type: 'function', z: 't1', name: 'Translate', func: 'msg.payload = "bonjour"; return msg;', wires: [['n5']] },
  { id: 'n5', type: 'http response', z: 't1', name: 'Answer', statusCode: '200', wires: [] },
  { id: 'n6', type: 'comment', z: 't1', name: 'About', info: 'Says hello', wires: [] },
  { id: 'n7', type: 'inject', z: 't2', name: 'Tick', repeat: '60', wires: [['n8']] },
  { id: 'n8', type: 'debug', z: 't2', name: 'Log', wires: [] },
  { id: 'c1', type: 'mqtt-broker', name: 'a config node', broker: 'localhost' },
];

test.serial('a Node-RED flow export becomes a definition; function code is never imported; other tabs are named in a warning', async (t) => {
  const res = await importing({ format: 'node-red', data: NODE_RED });
  t.is(res.status, 201, res.text);
  const wf = res.body.workflow;
  t.is(wf.name, 'Greeter');
  const byId = Object.fromEntries(wf.steps.map((s: { id: string }) => [s.id, s]));
  t.is(byId.post_greet.type, 'webhook');
  t.deepEqual(byId.set_greeting.config, { set: { greeting: 'hello' } });
  t.deepEqual(byId.which_language.config, { value: '{{trigger.body.lang}}', cases: [{ equals: 'fr', next: ['translate'] }], default: ['answer'] });
  t.is(byId.translate.type, 'note');
  t.notRegex(JSON.stringify(wf), /bonjour/, 'the function body is not in the definition');
  t.is(byId.answer.type, 'respond');
  t.true(res.body.warnings.some((w: { message: string }) => /JavaScript was not imported/.test(w.message)));
  t.true(res.body.warnings.some((w: { message: string }) => /1 other flow/.test(w.message)));

  const other = await importing({ format: 'node-red', data: NODE_RED, flow: 'Other flow' });
  t.is(other.status, 201, other.text);
  t.deepEqual(other.body.workflow.steps.map((s: { type: string }) => s.type), ['trigger', 'note']);
});

/** A Make blueprint: webhook -> set variable -> router with two routes (an HTTP call, a response). */
const MAKE = {
  name: 'Lead intake',
  flow: [
    { id: 1, module: 'gateway:CustomWebHook', version: 1, parameters: { hook: 123 }, mapper: {}, metadata: { designer: { x: 0, y: 0 } } },
    { id: 2, module: 'util:SetVariable2', version: 1, mapper: { name: 'email', value: '{{1.email}}', scope: 'roundtrip' }, metadata: { designer: { x: 300, y: 0, name: 'Keep email' } } },
    {
      id: 3, module: 'builtin:BasicRouter', version: 1, mapper: null, metadata: { designer: { x: 600, y: 0 } },
      routes: [
        { flow: [{ id: 4, module: 'http:ActionSendData', version: 3, mapper: { url: 'https://crm.example.com/leads', method: 'post', data: '{"email":"{{2.email}}"}' }, filter: { name: 'only real', conditions: [] }, metadata: { designer: { x: 900, y: -150 } } }] },
        { flow: [{ id: 5, module: 'gateway:WebhookRespond', version: 1, mapper: { status: '202', body: '{"ok":true}' }, metadata: { designer: { x: 900, y: 150 } } }] },
      ],
    },
    { id: 6, module: 'google-sheets:addRow', version: 2, mapper: {}, metadata: { designer: { x: 1200, y: 0 } } },
  ],
  metadata: { version: 1 },
};

test.serial('a Make blueprint becomes a definition: a router fans out in parallel, mappings become templates', async (t) => {
  const res = await importing({ format: 'make', data: MAKE, save: false });
  t.is(res.status, 200, res.text);
  const steps = res.body.definition.steps as { id: string; type: string; config: Record<string, unknown>; next: string[] }[];
  const byId = Object.fromEntries(steps.map((s) => [s.id, s]));
  t.is(byId.customwebhook_1.type, 'webhook');
  t.deepEqual(byId.keep_email.config, { set: { email: '{{customwebhook_1.output.email}}' } });
  t.is(byId.basicrouter_3.type, 'parallel');
  t.deepEqual(byId.basicrouter_3.next.sort(), ['actionsenddata_4', 'webhookrespond_5']);
  t.deepEqual(byId.actionsenddata_4.config, { method: 'POST', url: 'https://crm.example.com/leads', body: { email: '{{keep_email.output.email}}' } });
  t.deepEqual(byId.webhookrespond_5.config, { status: 202, body: { ok: true } });
  t.is(byId.addrow_6.type, 'note');
  t.true(res.body.warnings.some((w: { message: string }) => /route filter/.test(w.message)));
});

test.serial('bad imports: an unknown format, data that is not the format, not JSON, a flow for a non-Node-RED format (422 naming the field; nothing stored)', async (t) => {
  const before = (await k.call('/api/v1/workflows', { token: 'owner-token' })).body.total;
  const cases: [Record<string, unknown>, string][] = [
    [{ format: 'zapier', data: {} }, 'format'],
    [{ format: 'n8n' }, 'data'],
    [{ format: 'n8n', data: 42 }, 'data'],
    [{ format: 'n8n', data: { workflow: {} } }, 'data.nodes'],
    [{ format: 'n8n', data: '{not json' }, 'data'],
    [{ format: 'node-red', data: { nodes: [] } }, 'data'],
    [{ format: 'node-red', data: NODE_RED, flow: 'No such tab' }, 'data'],
    [{ format: 'make', data: { flow: 'x' } }, 'data'],
    [{ format: 'make', data: MAKE, flow: 'x' }, 'flow'],
    [{ format: 'n8n', data: { nodes: [{ name: 'A', type: 'n8n-nodes-base.webhook' }, { name: 'A', type: 'n8n-nodes-base.noOp' }] } }, 'data.nodes'],
    [{ format: 'n8n', data: N8N, extra: true }, 'extra'],
  ];
  for (const [body, field] of cases) {
    const res = await importing(body);
    t.is(res.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
    const fields = [res.body.field, ...(res.body.errors ?? []).map((e: { field: string }) => e.field)];
    t.true(fields.includes(field), `${JSON.stringify(body).slice(0, 60)} names ${field}: ${res.text}`);
  }
  t.is((await k.call('/api/v1/workflows', { token: 'owner-token' })).body.total, before);
});

test.serial('an import without a token is 401; a member may import (definitions are the entity\'s)', async (t) => {
  t.is((await k.call('/api/v1/workflows/import', { method: 'POST', json: { format: 'n8n', data: N8N } })).status, 401);
  const res = await importing({ format: 'n8n', data: N8N, name: 'By a member' }, 'member-token');
  t.is(res.status, 201, res.text);
  const other = await k.call(`/api/v1/workflows/${res.body.workflow.id}`, { token: 'other-token' });
  t.is(other.status, 404);
});

/** A small seeded generator, so a failure can be replayed. */
function junkOf(seed: number): () => unknown {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
  const value = (depth: number): unknown => {
    const kinds = depth > 2 ? ['s', 'n', 'b', 'null'] : ['s', 'n', 'b', 'null', 'a', 'o', 'o'];
    switch (pick(kinds)) {
      case 's': return pick(['', 'x', '={{ $json.a }}', '{{1.a}}', 'n8n-nodes-base.if', 'http in', 'gateway:CustomWebHook', 'ü'.repeat(300), 'Webhook', 'main']);
      case 'n': return pick([0, -1, 1.5, 1e308, 3]);
      case 'b': return rnd() > 0.5;
      case 'null': return null;
      case 'a': return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
      default: {
        const keys = ['name', 'type', 'id', 'nodes', 'connections', 'main', 'node', 'wires', 'z', 'flow', 'routes', 'module', 'mapper', 'parameters', 'rules', 'conditions', 'value1', 'url', 'method'];
        return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 5) }, () => [pick(keys), value(depth + 1)]));
      }
    }
  };
  return () => value(0);
}

test.serial('junk in any shape is a 4xx, never a 500, and a workflow too large for a definition is refused', async (t) => {
  const seen: Record<string, number> = {};
  const problems = new Set<string>();
  for (let seed = 1; seed <= 60; seed++) {
    const junk = junkOf(seed);
    for (const format of ['n8n', 'node-red', 'make']) {
      const data = junk();
      const RED = ['inject', 'http in', 'http response', 'http request', 'change', 'switch', 'delay', 'join', 'comment', 'function', 'debug', 'tab'];
      const MAKE_MODULES = ['gateway:CustomWebHook', 'gateway:WebhookRespond', 'http:ActionSendData', 'builtin:BasicRouter', 'util:SetVariable2', 'util:SetVariables', 'util:FunctionSleep', 'x:y'];
      const redNode = (i: number) => ({ id: `n${i}`, type: RED[(seed + i) % RED.length], z: i % 3 ? 't1' : junk(), name: junk(), wires: i % 2 ? [[`n${i + 1}`], junk()] : junk(), rules: junk(), statusCode: junk(), timeout: junk(), property: junk(), repeat: junk() });
      const makeModule = (i: number): Record<string, unknown> => ({ id: i, module: MAKE_MODULES[(seed + i) % MAKE_MODULES.length], mapper: i % 2 ? { url: junk(), method: junk(), status: junk(), body: junk(), name: junk(), value: junk(), variables: junk(), duration: junk() } : junk(), routes: i === 2 ? [{ flow: [makeModule(10 + i)] }, junk()] : junk(), metadata: junk() });
      const shaped = format === 'node-red'
        ? [{ id: 't1', type: 'tab', label: junk() }, ...Array.from({ length: 5 }, (_, i) => redNode(i))]
        : format === 'n8n' ? { nodes: [junk(), junk(), { name: 'W', type: 'n8n-nodes-base.webhook' }], connections: junk() } : { flow: Array.from({ length: 4 }, (_, i) => makeModule(i)) };
      for (const body of [{ format, data }, { format, data: shaped }]) {
        const res = await importing({ ...body, save: false });
        t.not(res.status, 500, `seed ${seed} ${format}: ${res.text.slice(0, 300)}`);
        t.true([200, 422].includes(res.status), `seed ${seed} ${format}: ${res.status} ${res.text.slice(0, 300)}`);
        seen[`${format} ${res.status} ${res.body?.code ?? ""}`] = (seen[`${format} ${res.status} ${res.body?.code ?? ""}`] ?? 0) + 1;
        if (res.body?.code === "WORKFLOWS_ERR_INVALID_DEFINITION") problems.add(res.body.errors.map((e: { message: string }) => e.message.slice(0, 90)).join(" / "));
      }
    }
  }
  t.log(seen);
  t.deepEqual([...problems], [], 'what an importer accepts always makes a valid definition');
  t.true(Object.keys(seen).some((k) => k.includes(' 200 ')), 'some junk still made a workflow');
  const huge = { name: 'x'.repeat(400), nodes: Array.from({ length: 600 }, (_, i) => ({ name: `n${i}`, type: 'n8n-nodes-base.noOp' })), connections: {} };
  const refused = await importing({ format: 'n8n', data: huge });
  t.is(refused.status, 422, refused.text);
  t.is(refused.body.code, 'WORKFLOWS_ERR_IMPORT_UNREADABLE');
  t.is(refused.body.field, 'data.nodes');
  t.regex(refused.body.detail, /600 nodes; a workflow holds at most 500/);
  const fanOut = { nodes: Array.from({ length: 150 }, (_, i) => ({ name: `n${i}`, type: 'n8n-nodes-base.noOp' })), connections: { n0: { main: [Array.from({ length: 149 }, (_, i) => ({ node: `n${i + 1}` }))] } } };
  const crowded = await importing({ format: 'n8n', data: fanOut, save: false });
  t.is(crowded.status, 422, crowded.text);
  t.true(crowded.body.errors.some((e: { field: string }) => /^steps.*next$/.test(e.field)), crowded.text);
  const longName = await importing({ format: 'n8n', data: { ...N8N, name: 'y'.repeat(400) } });
  t.is(longName.status, 201, longName.text);
  t.is(longName.body.workflow.name.length, 200);
});

test.serial('malformed edges and routes are left out with a warning, never a crash', async (t) => {
  const cases: [string, unknown, RegExp][] = [
    ['n8n', { nodes: [{ name: 'a', type: 'n8n-nodes-base.webhook' }, { name: 'b', type: 'n8n-nodes-base.noOp' }], connections: { a: { main: [[null]] } } }, /connections that are not lists/],
    ['n8n', { nodes: [{ name: 'a', type: 'n8n-nodes-base.webhook' }], connections: { a: { main: {} } } }, /connections that are not lists/],
    ['node-red', [{ id: 'a', type: 'http in', wires: ['b'] }, { id: 'b', type: 'debug', wires: [] }], /connections that are not lists/],
    ['make', { flow: [{ id: 1, module: 'gateway:CustomWebHook' }, { id: 2, module: 'builtin:BasicRouter', routes: [null] }] }, /route without a `flow`/],
    ['make', { flow: [{ id: 1, module: 'gateway:CustomWebHook' }, { id: 2, module: 'builtin:BasicRouter', routes: [{ flow: {} }] }] }, /route without a `flow`/],
  ];
  for (const [format, data, warning] of cases) {
    const res = await importing({ format, data, save: false });
    t.is(res.status, 200, `${format} ${JSON.stringify(data)}: ${res.text}`);
    t.true(res.body.warnings.some((w: Warning) => warning.test(w.message)), `${format}: ${JSON.stringify(res.body.warnings)}`);
  }
});

test.serial('the importers agree: statuses outside 100-599, timers that are not numbers and missing URLs become defaults with a warning', async (t) => {
  const n8n = await importing({ format: 'n8n', save: false, data: { nodes: [
    { name: 'Hook', type: 'n8n-nodes-base.webhook' },
    { name: 'Call', type: 'n8n-nodes-base.httpRequest', parameters: {} },
    { name: 'Pause', type: 'n8n-nodes-base.wait', parameters: { amount: 'abc', unit: 'minutes' } },
    { name: 'Answer', type: 'n8n-nodes-base.respondToWebhook', parameters: { options: { responseCode: 999 } } },
  ], connections: { Hook: { main: [[{ node: 'Call' }]] }, Call: { main: [[{ node: 'Pause' }]] }, Pause: { main: [[{ node: 'Answer' }]] } } } });
  const red = await importing({ format: 'node-red', save: false, data: [
    { id: 'h', type: 'http in', name: 'Hook', wires: [['c']] },
    { id: 'c', type: 'http request', name: 'Call', wires: [['p']] },
    { id: 'p', type: 'delay', name: 'Pause', timeout: 'abc', timeoutUnits: 'minutes', wires: [['a']] },
    { id: 'a', type: 'http response', name: 'Answer', statusCode: '999', wires: [] },
  ] });
  const make = await importing({ format: 'make', save: false, data: { flow: [
    { id: 1, module: 'gateway:CustomWebHook', metadata: { designer: { name: 'Hook' } } },
    { id: 2, module: 'http:ActionSendData', mapper: {}, metadata: { designer: { name: 'Call' } } },
    { id: 3, module: 'util:FunctionSleep', mapper: { duration: 'abc' }, metadata: { designer: { name: 'Pause' } } },
    { id: 4, module: 'gateway:WebhookRespond', mapper: { status: 999 }, metadata: { designer: { name: 'Answer' } } },
  ] } });
  for (const [format, res, unitSeconds] of [['n8n', n8n, 60], ['node-red', red, 60], ['make', make, 1]] as const) {
    t.is(res.status, 200, `${format}: ${res.text}`);
    const byId = Object.fromEntries(res.body.definition.steps.map((s: { id: string }) => [s.id, s]));
    t.is(byId.answer.config.status, 200, format);
    t.is(byId.pause.config.seconds, unitSeconds, format);
    t.is(byId.call.config.url, 'https://example.invalid/', format);
    const warned = (source: string, pattern: RegExp) => res.body.warnings.some((w: Warning) => w.source === source && pattern.test(w.message));
    t.true(warned('Answer', /outside 100-599/), `${format}: ${JSON.stringify(res.body.warnings)}`);
    t.true(warned('Pause', /not a number/), format);
    t.true(warned('Call', /without a URL/), format);
  }
});

/** Junk shaped like each format, with the keys the importers read and ones that trip plain lookups. */
function shapedJunk(seed: number): Record<string, () => unknown> {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const KEYS = ['name', 'type', 'id', 'node', 'main', 'wires', 'flow', 'routes', 'filter', 'module', 'mapper', 'parameters', 'options', 'responseCode', 'responseBody',
    'values', 'assignments', 'conditions', 'operator', 'operation', 'rules', 'output', 'fallbackOutput', 'headerParameters', 'bodyParameters', 'amount', 'unit',
    'timeout', 'timeoutUnits', 'statusCode', 'status', 'url', 'method', 'info', 'variables', 'duration', 'metadata', 'designer', 'toString', 'valueOf', 'constructor', '__proto__'];
  const value = (depth: number): unknown => {
    switch (pick(depth > 3 ? ['s', 'n', 'null'] : ['s', 'n', 'null', 'a', 'o', 'o'])) {
      case 's': return pick(['', 'x', 'a', 'b', '1', '={{ $json.a }}', '{{1.a}}', 'constructor', '__proto__', 'toString', 'minutes', 'else', 'eq', 'set', '999', 'abc']);
      case 'n': return pick([0, 1, 2, -1, 1.5, 999, 1e308, NaN]);
      case 'null': return null;
      case 'a': return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
      default: return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 6) }, () => [pick(KEYS), value(depth + 1)]));
    }
  };
  const N8N_TYPES = ['webhook', 'httpRequest', 'set', 'if', 'switch', 'respondToWebhook', 'wait', 'noOp', 'stickyNote', 'stopAndError', 'slack'];
  const RED_TYPES = ['inject', 'http in', 'http response', 'http request', 'change', 'switch', 'delay', 'comment', 'function', 'tab'];
  const MAKE_MODULES = ['gateway:CustomWebHook', 'gateway:WebhookRespond', 'http:ActionSendData', 'builtin:BasicRouter', 'util:SetVariable2', 'util:SetVariables', 'util:FunctionSleep'];
  const names = ['a', 'b', 'x', '1'];
  return {
    n8n: () => ({ name: value(2), nodes: names.map((name) => ({ name, type: `n8n-nodes-base.${pick(N8N_TYPES)}`, parameters: value(0) })), connections: Object.fromEntries(names.map((n) => [n, { main: value(1) }])) }),
    'node-red': () => names.map((id) => ({ id, type: pick(RED_TYPES), z: value(3), name: value(3), label: value(3), wires: rnd() > 0.2 ? [value(1), value(1)] : value(1), rules: value(1), statusCode: value(2), timeout: value(2), timeoutUnits: value(2), url: value(2), info: value(2), property: value(2) })),
    make: () => {
      const module = (id: number, depth: number): unknown => ({ id, module: pick(MAKE_MODULES), mapper: value(0), metadata: value(1), routes: depth < 2 ? [{ flow: [module(id * 10, depth + 1)] }, value(1)] : value(1) });
      return { name: value(2), flow: [1, 2, 3].map((id) => module(id, 0)) };
    },
  };
}

test('an importer returns a draft or throws ImportError for any input: never a TypeError', (t) => {
  const importers: Record<string, (data: unknown) => unknown> = { n8n: (d) => importN8n(d, undefined), 'node-red': (d) => importNodeRed(d, undefined, undefined), make: (d) => importMake(d, undefined) };
  let drafts = 0;
  for (let seed = 1; seed <= 1500; seed++) {
    const junk = shapedJunk(seed);
    for (const [format, run] of Object.entries(importers)) {
      const data = junk[format]();
      try {
        run(data);
        drafts++;
      } catch (err) {
        if (!(err instanceof ImportError)) t.fail(`seed ${seed} ${format}: ${(err as Error).stack}\n${JSON.stringify(data)}`);
      }
    }
  }
  t.true(drafts > 1000, `${drafts} drafts`);
});

test.serial('what an importer makes of shaped junk is always a valid definition', async (t) => {
  for (let seed = 1; seed <= 100; seed++) {
    const junk = shapedJunk(seed);
    for (const format of ['n8n', 'node-red', 'make']) {
      const res = await importing({ format, data: junk[format](), save: false });
      t.true(res.status === 200 || res.body?.code === 'WORKFLOWS_ERR_IMPORT_UNREADABLE', `seed ${seed} ${format}: ${res.text.slice(0, 300)}`);
    }
  }
});

test.serial('no import answer leaks an internal error text', (t) => {
  t.true(details.length > 20);
  for (const detail of details) t.notRegex(detail, /Cannot read|is not a function|iterable|undefined/);
});
