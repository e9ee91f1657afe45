import test from 'ava';
import { parseExpression } from '../plugins/workflows/import/n8n/expressions.ts';
import { ExpressionTranslator, type ItemsRef } from '../plugins/workflows/import/n8n/translate.ts';
import { jsonBody } from '../plugins/workflows/import/n8n/json-body.ts';
import { importN8n } from '../plugins/workflows/import/n8n.ts';
import { IMPLEMENTED, NOT_IMPLEMENTED } from '../plugins/workflows/import/n8n/extensions.ts';

/** n8n expressions parsed with acorn, never evaluated: references, computing ones, what cannot be carried over. */
const ITEMS: Record<string, ItemsRef> = { Webhook: { path: 'webhook.output', single: true }, Lines: { path: 'lines.output', single: false } };
const translator = (mode: 'item' | 'first') =>
  new ExpressionTranslator({ mode, input: ITEMS.Lines, nodeItems: (n) => ITEMS[n], computed: (key) => (mode === 'item' ? `calc.output[$index].${key}` : `calc.output[0].${key}`) });

test('references become templates: the item, the first input item, a paired element, first(), all(), $node, $vars', (t) => {
  const item = translator('item');
  t.is(item.value('={{ $json.a.b[0] }}'), '{{item.a.b[0]}}');
  t.is(item.value("={{ $json['odd key'] }}"), '{{item["odd key"]}}');
  t.is(item.value('={{ $input.item.json.x }}'), '{{item.x}}');
  t.is(item.value("={{ $('Lines').item.json.sku }}"), '{{lines.output[$item].sku}}');
  t.is(item.value("={{ $('Webhook').item.json.body.id }}"), '{{webhook.output.body.id}}', 'an entry node is one item');
  t.is(item.value("={{ $('Lines').first().json.sku }}"), '{{lines.output[0].sku}}');
  t.is(item.value("={{ $('Lines').all() }}"), '{{lines.output}}');
  t.is(item.value('={{ $node["Lines"].json.sku }}'), '{{lines.output[$item].sku}}');
  t.is(item.value('={{ $vars.region }}'), '{{region}}');
  t.is(item.value('=Hello {{ $json.name }}, #{{ $json.n }}'), 'Hello {{item.name}}, #{{item.n}}');
  t.is(item.value('plain {{ text }}'), 'plain {{ text }}', 'a value without = is not an expression');
  const first = translator('first');
  t.is(first.value('={{ $json.total }}'), '{{lines.output[0].total}}');
  t.is(first.value('={{ $input.first().json.total }}'), '{{lines.output[0].total}}');
  t.deepEqual([...item.problems, ...first.problems], []);
  t.deepEqual(item.computing, []);
});

test('a computing expression is collected for the generated code step; $env, $jmespath and $execution.mode cannot be carried over; bad syntax is a problem', (t) => {
  const tr = translator('item');
  t.is(tr.value('={{ $json.price * $json.qty }}'), '{{calc.output[$index].e0}}');
  t.is(tr.value("=Total: {{ $('Lines').all().length + 1 }}"), 'Total: {{calc.output[$index].e1}}');
  t.deepEqual(tr.computing, [
    { key: 'e0', source: '$json.price * $json.qty', nodes: [] },
    { key: 'e1', source: "$('Lines').all().length + 1", nodes: ['Lines'] },
  ]);
  t.deepEqual(tr.problems, []);
  const blocked = translator('item');
  blocked.value('={{ $env.API_KEY }}');
  blocked.value('={{ $jmespath($json, "a.b") }}');
  blocked.value('={{ $execution.mode }}');
  blocked.value('={{ $json.a + }}');
  blocked.value("={{ $('Nowhere').item.json.x }}");
  t.is(blocked.problems.length, 5);
  t.regex(blocked.problems[0], /reads \$env/);
  t.regex(blocked.problems[1], /uses \$jmespath/);
  t.regex(blocked.problems[2], /uses \$execution\.mode/);
  t.regex(blocked.problems[3], /does not parse/);
  t.regex(blocked.problems[4], /'Nowhere', which is not in the export/);
  t.deepEqual(blocked.computing, []);
  t.like(parseExpression('$json.a; $json.b'), { kind: 'invalid' });
  t.like(parseExpression('(() => { while (true) {} })()'), { kind: 'computing' }, 'parsed, never run');
});

test("the dialect's variables carry over: $now, $today, DateTime, $itemIndex, $runIndex, $workflow, $execution.id; $workflow.name and .active are reported as they differ", (t) => {
  const tr = translator('item');
  const sources = ['$now.toISO()', "$today.startOf('month').toFormat('yyyy-MM-dd')", "DateTime.fromISO($json.at).setZone('UTC').hour", 'Duration.fromObject({ hours: 1 }).as("minutes")', '$itemIndex + 1', '$runIndex * 10', '$workflow.id', '$execution.id', '$workflow.name', '$workflow.active'];
  sources.forEach((source, i) => t.is(tr.value(`={{ ${source} }}`), `{{calc.output[$index].e${i}}}`, source));
  t.deepEqual(tr.problems, []);
  t.deepEqual(tr.computing.map((c) => c.source), sources);
  t.deepEqual(tr.approx, ["$workflow.name is the workflow's name when it was imported", '$workflow.active is true when the run comes from a binding (a deployment with its trigger), false otherwise']);
  t.deepEqual(parseExpression('$workflow.id + $now.toISO()'), { kind: 'computing', source: '$workflow.id + $now.toISO()', code: '$workflow.id + $now.toISO()', nodes: [], blocked: [], unsupported: [], approx: [] });
  for (const bad of ['$workflow.settings', '$execution.customData.get("a")', '$execution["resumeUrl"]']) t.deepEqual((parseExpression(bad) as { blocked: string[] }).blocked.length, 1, bad);
});

test('n8n data transformation functions: each implemented one is rewritten for the dialect, natives are left alone, an unimplemented one is unmapped by name', (t) => {
  for (const name of IMPLEMENTED) {
    const tr = translator('first');
    tr.value(`={{ $json.v.${name}('x') }}`);
    t.deepEqual(tr.computing, [{ key: 'e0', source: `$__ext($json.v, "${name}", ['x'])`, nodes: [], shown: `$json.v.${name}('x')` }], name);
  }
  const code = (source: string) => (parseExpression(source) as { code: string }).code;
  t.is(code("$json.tags.unique().first().toUpperCase() + $json.n.round(2)"), '$__ext($__ext($json.tags, "unique", []), "first", []).toUpperCase() + $__ext($json.n, "round", [2])');
  t.is(code('$json.items.map((i) => i.price.toNumber()).sum()'), '$__ext($json.items.map((i) => $__ext(i.price, "toNumber", [])), "sum", [])');
  t.is(code("$json.a?.isEmpty() ?? $json.b.c?.d.format('yyyy')"), '$__ext($json.a, "isEmpty", [], true) ?? $__ext($json.b.c?.d, "format", [\'yyyy\'], true)');
  t.is(code('(0, $json.a).isEmpty() || $json.b.append((1, 2))'), '$__ext((0, $json.a), "isEmpty", []) || $__ext($json.b, "append", [(1, 2)])');
  const native = "$json.list.includes('a') && 'a,b'.split(',').join('-') && $input.first().json.x && $('Lines').last().json.y && Math.round(Math.max(1, 2)) && Object.keys($json).length";
  t.is(code(native), native, 'natives, namespaces and item accessors are left alone');
  const tr = translator('item');
  t.is(tr.value('={{ $json.name.toTitleCase() }} and {{ $json.body.hash("sha256") }}'), '{{}} and {{}}');
  t.is(tr.problems.length, 2);
  t.regex(tr.problems[0], /calls n8n's \.toTitleCase\(\), which the n8n code dialect here does not implement/);
  t.regex(tr.problems[1], /\.hash\(\)/);
  t.deepEqual(tr.computing, []);
  for (const name of NOT_IMPLEMENTED) t.false(IMPLEMENTED.has(name), name);
});

test('an import tells the dialect the zone, the workflow name and, in a loop body, the iteration as $runIndex', (t) => {
  const set = (name: string, value: string) => ({ name, type: 'n8n-nodes-base.set', typeVersion: 3.4, parameters: { assignments: { assignments: [{ name: 'v', type: 'string', value }] } } });
  const out = importN8n({
    name: 'Orders', settings: { timezone: 'Europe/Paris' },
    nodes: [
      { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
      { name: 'Loop', type: 'n8n-nodes-base.splitInBatches', typeVersion: 3, parameters: { batchSize: 2 } },
      set('In loop', '={{ $runIndex }}'),
      { name: 'Code', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode: 'return [{ json: { run: $runIndex, at: $now.toISO(), wf: $workflow.name } }];' } },
      set('After', '={{ $json.email.isNotEmpty() }}'),
      set('Bad', '={{ $json.body.base64Decode() }}'),
    ],
    connections: {
      Start: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
      Loop: { main: [[{ node: 'After', type: 'main', index: 0 }], [{ node: 'In loop', type: 'main', index: 0 }]] },
      'In loop': { main: [[{ node: 'Code', type: 'main', index: 0 }]] },
      Code: { main: [[{ node: 'Loop', type: 'main', index: 0 }]] },
      After: { main: [[{ node: 'Bad', type: 'main', index: 0 }]] },
    },
  }, undefined);
  const steps = Object.fromEntries(out.steps.map((s) => [s.id, s]));
  t.like(steps.in_loop_expressions.config, { code: 'return { e0: ($runIndex) };', input: { zone: 'Europe/Paris', workflow: { name: 'Orders' }, run_index: '{{loop.output.iteration}}' } });
  t.like(steps.code.config, { input: { zone: 'Europe/Paris', workflow: { name: 'Orders' }, run_index: '{{loop.output.iteration}}' } });
  t.like(steps.after_expressions.config, { code: 'return { e0: ($__ext($json.email, "isNotEmpty", [])) };', input: { zone: 'Europe/Paris', workflow: { name: 'Orders' } } });
  t.false('run_index' in (steps.after_expressions.config as { input: object }).input, 'after the loop: run 0');
  const report = Object.fromEntries(out.report!.map((r) => [r.source, r]));
  t.is(report['In loop'].status, 'mapped');
  t.is(report.After.status, 'mapped');
  t.is(report.Code.status, 'approximated');
  t.deepEqual(report.Code.notes, ["$workflow.name is the workflow's name when it was imported"]);
  t.is(report.Bad.status, 'unmapped');
  t.regex(report.Bad.notes[0], /\.base64Decode\(\)/);
});

test('a JSON body with expressions: a whole value keeps its type, one inside a string is interpolated', (t) => {
  const tr = translator('first');
  t.deepEqual(jsonBody('={ "id": {{ $json.id }}, "label": "#{{ $json.id }} of {{ $json.name }}", "fixed": [1, true] }', tr), {
    id: '{{lines.output[0].id}}', label: '#{{lines.output[0].id}} of {{lines.output[0].name}}', fixed: [1, true],
  });
  t.deepEqual(jsonBody('{"plain": "json"}', tr), { plain: 'json' });
  t.is(jsonBody('={{ $json.body }}', tr), '{{lines.output[0].body}}');
});

test('IF v1 and Switch v2 exports map to item conditions and cases', (t) => {
  const out = importN8n({
    nodes: [
      { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
      { name: 'Old if', type: 'n8n-nodes-base.if', typeVersion: 1, parameters: { conditions: { number: [{ value1: '={{ $json.n }}', operation: 'larger', value2: 2 }], string: [{ value1: '={{ $json.s }}', operation: 'startsWith', value2: 'a' }] }, combineOperation: 'any' } },
      { name: 'Old switch', type: 'n8n-nodes-base.switch', typeVersion: 2, parameters: { dataType: 'string', value1: '={{ $json.kind }}', rules: { rules: [{ value2: 'x', output: 0 }, { operation: 'contains', value2: 'y', output: 1 }] }, fallbackOutput: 2 } },
      { name: 'A', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
      { name: 'B', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
      { name: 'C', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
    ],
    connections: {
      Start: { main: [[{ node: 'Old if', type: 'main', index: 0 }]] },
      'Old if': { main: [[{ node: 'Old switch', type: 'main', index: 0 }]] },
      'Old switch': { main: [[{ node: 'A', type: 'main', index: 0 }], [{ node: 'B', type: 'main', index: 0 }], [{ node: 'C', type: 'main', index: 0 }]] },
    },
  }, undefined);
  const steps = Object.fromEntries(out.steps.map((s) => [s.id, s]));
  t.deepEqual(steps.old_if.config, {
    items: ['{{start.output}}'],
    conditions: [{ field: 'n', operator: 'gt', value: 2 }, { field: 's', operator: 'starts_with', value: 'a' }],
    combine: 'or',
    branches: { true: ['old_switch'], false: [] },
  });
  t.deepEqual(steps.old_switch.config, {
    field: 'kind', items: '{{old_if.output.true}}',
    cases: [{ equals: 'x', next: ['a'] }, { conditions: [{ field: 'kind', operator: 'contains', value: 'y' }], next: ['b'] }],
    default: ['c'],
  });
  t.deepEqual(out.report!.map((r) => r.status), ['mapped', 'mapped', 'mapped', 'mapped', 'mapped', 'mapped']);
  t.is(out.report!.find((r) => r.source === 'C')!.items, '{{old_switch.output.default}}');
});

test("a node's settings: executeOnce narrows each to the first item; an error output's edges are left out and reported; a schedule's rule is named", (t) => {
  const out = importN8n({
    nodes: [
      { name: 'Every hour', type: 'n8n-nodes-base.scheduleTrigger', typeVersion: 1.2, parameters: { rule: { interval: [{ field: 'hours', hoursInterval: 2, triggerAtMinute: 5 }] } } },
      { name: 'Rows', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode: 'return [{ json: { a: 1 } }, { json: { a: 2 } }];' } },
      { name: 'Once', type: 'n8n-nodes-base.set', typeVersion: 3.4, executeOnce: true, parameters: { assignments: { assignments: [{ name: 'a', value: '={{ $json.a }}', type: 'number' }] } } },
      { name: 'Call', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, onError: 'continueErrorOutput', parameters: { url: 'https://api.example.com/' } },
      { name: 'Ok', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
      { name: 'Failed', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
    ],
    connections: {
      'Every hour': { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
      Rows: { main: [[{ node: 'Once', type: 'main', index: 0 }]] },
      Once: { main: [[{ node: 'Call', type: 'main', index: 0 }]] },
      Call: { main: [[{ node: 'Ok', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]] },
    },
  }, undefined);
  const steps = Object.fromEntries(out.steps.map((s) => [s.id, s]));
  t.deepEqual(steps.once.config.each, ['{{rows.output[0]}}']);
  t.deepEqual(steps.call.next, ['ok']);
  const report = Object.fromEntries(out.report!.map((r) => [r.source, r]));
  t.is(report.Call.status, 'approximated');
  t.regex(report.Call.notes.join(' '), /error output and its nodes are not reached/);
  t.regex(report['Every hour'].notes[0], /n8n's rule: every 2 hours at minute 5/);
});

test('Respond to Webhook: all items, text, no data, a redirect, headers', (t) => {
  const respond = (parameters: Record<string, unknown>) => {
    const out = importN8n({
      nodes: [
        { name: 'Hook', type: 'n8n-nodes-base.webhook', typeVersion: 2, parameters: { path: 'x', responseMode: 'responseNode' } },
        { name: 'Answer', type: 'n8n-nodes-base.respondToWebhook', typeVersion: 1.1, parameters },
      ],
      connections: { Hook: { main: [[{ node: 'Answer', type: 'main', index: 0 }]] } },
    }, undefined);
    return { config: out.steps.find((s) => s.id === 'answer')!.config, report: out.report!.find((r) => r.source === 'Answer')! };
  };
  t.deepEqual(respond({ respondWith: 'allIncomingItems' }).config, { status: 200, body: ['{{hook.output}}'] });
  t.deepEqual(respond({ respondWith: 'text', responseBody: '=Hi {{ $json.body.name }}', options: { responseCode: 202, responseHeaders: { entries: [{ name: 'X-Src', value: 'n8n' }] } } }).config, {
    status: 202, headers: { 'X-Src': 'n8n', 'Content-Type': 'text/html; charset=utf-8' }, body: 'Hi {{hook.output.body.name}}',
  });
  t.deepEqual(respond({ respondWith: 'noData' }).config, { status: 200, body: '', headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  t.deepEqual(respond({ respondWith: 'redirect', redirectURL: 'https://example.com/done' }).config, { status: 307, headers: { Location: 'https://example.com/done' } });
  const binary = respond({ respondWith: 'binary' });
  t.is(binary.report.status, 'unmapped');
  t.regex(binary.report.notes[0], /responding with binary data: items here carry no binary data/);
});

test('literal text or code holding {{ }} is reported: the engine reads it as a template', (t) => {
  const out = importN8n({
    nodes: [
      { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
      { name: 'Greet', type: 'n8n-nodes-base.set', typeVersion: 3.4, parameters: { assignments: { assignments: [{ name: 'text', value: 'Dear {{name}}', type: 'string' }] } } },
      { name: 'Render', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode: 'return [{ json: { html: "<b>{{x}}</b>" } }];' } },
    ],
    connections: { Start: { main: [[{ node: 'Greet', type: 'main', index: 0 }]] }, Greet: { main: [[{ node: 'Render', type: 'main', index: 0 }]] } },
  }, undefined);
  const report = Object.fromEntries(out.report!.map((r) => [r.source, r]));
  t.is(report.Greet.status, 'approximated');
  t.regex(report.Greet.notes[0], /'Dear \{\{name\}\}' holds \{\{ \}\}/);
  t.is(report.Render.status, 'approximated');
  t.regex(report.Render.notes[0], /the code holds \{\{ \}\}/);
});

test('a per-item node reached from two branches is reported: it runs for the first branch\'s items', (t) => {
  const out = importN8n({
    nodes: [
      { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
      { name: 'Check', type: 'n8n-nodes-base.if', typeVersion: 2, parameters: { conditions: { conditions: [{ leftValue: '={{ $json.a }}', rightValue: 1, operator: { type: 'number', operation: 'equals' } }] } } },
      { name: 'Both', type: 'n8n-nodes-base.set', typeVersion: 3.4, parameters: { assignments: { assignments: [{ name: 'b', value: 'x', type: 'string' }] } } },
    ],
    connections: { Start: { main: [[{ node: 'Check', type: 'main', index: 0 }]] }, Check: { main: [[{ node: 'Both', type: 'main', index: 0 }], [{ node: 'Both', type: 'main', index: 0 }]] } },
  }, undefined);
  const both = out.report!.find((r) => r.source === 'Both')!;
  t.is(both.status, 'approximated');
  t.regex(both.notes[0], /reached from several nodes: it runs once, for the items of 'Check'/);
});
