import test from 'ava';
import { importN8n } from '../plugins/workflows/import/n8n.ts';
import { receipt, runUntil, startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

/**
 * The n8n flow nodes' options beyond the basics: conditions computed per item, ignoring case,
 * on date-times; Switch in expression mode and to every matching output; every Merge join;
 * Wait until a date-time or a resume; Respond to Webhook's other answers. Each names its report
 * row (mapped, approximated with what differs, unmapped with why); the last tests run what an
 * n8n node would fail on and check the step fails with its reason.
 */
type Report = { source: string; status: string; notes: string[]; step_id: string };
type Step = { id: string; type: string; config: Record<string, any>; next: string[] };
const node = (name: string, type: string, parameters: Record<string, unknown> = {}, typeVersion = 1) => ({ id: name, name, type: `n8n-nodes-base.${type}`, typeVersion, position: [0, 0], parameters });
const chain = (...names: string[]) => Object.fromEntries(names.slice(0, -1).map((n, i) => [n, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]));
const cond = (leftValue: unknown, type: string, operation: string, rightValue: unknown = '') => ({ id: 'c', leftValue, rightValue, operator: { type, operation } });
const conditions = (list: unknown[], caseSensitive = true) => ({ options: { caseSensitive, leftValue: '', typeValidation: 'strict', version: 2 }, conditions: list, combinator: 'and' });

function imported(nodes: unknown[], connections: Record<string, unknown>, settings: Record<string, unknown> = {}) {
  const out = importN8n({ nodes: [node('Start', 'manualTrigger'), ...nodes], connections, settings }, undefined);
  const report = Object.fromEntries(out.report!.map((r) => [r.source, r as Report]));
  const steps = Object.fromEntries(out.steps.map((s) => [s.id, s as unknown as Step]));
  return { report, steps };
}

test('IF: a computing left side and a right side reading the item are read per item; ignore case is exact, a regex under it is reported; dateTime compares parsed instants in the workflow zone', (t) => {
  const { report, steps } = imported(
    [{ ...node('Check', 'if', { conditions: conditions([
      cond('={{ $json.price * $json.qty }}', 'number', 'gt', '={{ $json.limit }}'),
      cond('={{ $json.name }}', 'string', 'equals', '={{ $json.wanted.toLowerCase() }}'),
      cond('={{ $json.code }}', 'string', 'regex', '^ab'),
      cond('={{ $json.due }}', 'dateTime', 'before', '2024-03-01'),
    ], false), options: { ignoreCase: true } }), typeVersion: 2.2 }],
    chain('Start', 'Check'),
    { timezone: 'Europe/Berlin' },
  );
  t.is(report.Check.status, 'approximated');
  t.deepEqual(report.Check.notes, [
    'a regex is matched case-sensitively (the n8n node ignored case)',
    "computing expressions moved to the generated code step 'check_expressions' (n8n dialect): {{ $json.price * $json.qty }}, {{ $json.wanted.toLowerCase() }}",
  ]);
  t.deepEqual(steps.check.config.conditions, [
    { operator: 'gt', operand: 'e0', value_field: 'limit' },
    { operator: 'eq', field: 'name', value_operand: 'e1', ignore_case: true },
    { operator: 'matches', field: 'code', value: '^ab' },
    { operator: 'lt', field: 'due', value: '2024-03-01', type: 'datetime', zone: 'Europe/Berlin' },
  ]);
  t.is(steps.check.config.operands, '{{check_expressions.output}}');
  t.like(steps.check_expressions.config, { each: ['{{start.output}}'], dialect: 'n8n', code: 'return { e0: ($json.price * $json.qty), e1: ($json.wanted.toLowerCase()) };' });
  t.deepEqual(steps.check_expressions.next, ['check'], 'the code step runs before the branching step');
});

test('conditions: a right side fixed for every item stays a template; $env and $vars per item are unmapped with why', (t) => {
  const { report, steps } = imported(
    [
      { ...node('Fixed', 'filter', { conditions: conditions([cond('={{ $json.n }}', 'number', 'gt', "={{ $('Start').first().json.min }}")]) }), typeVersion: 2.2 },
      { ...node('Env', 'if', { conditions: conditions([cond('={{ $json.n }}', 'number', 'gt', '={{ $env.LIMIT }}')]) }), typeVersion: 2.2 },
      { ...node('Vars', 'if', { conditions: conditions([cond('={{ $vars.min }}', 'number', 'lt', '={{ $json.n }}')]) }), typeVersion: 2.2 },
    ],
    { ...chain('Start', 'Fixed', 'Env'), Fixed: { main: [[{ node: 'Env', type: 'main', index: 0 }, { node: 'Vars', type: 'main', index: 0 }]] } },
  );
  t.is(report.Fixed.status, 'mapped');
  t.deepEqual(steps.fixed.config.conditions, [{ operator: 'gt', field: 'n', value: '{{start.output.min}}' }]);
  t.is(steps.fixed.config.operands, undefined);
  t.is(report.Env.status, 'unmapped');
  t.regex(report.Env.notes[0], /reads \$env/);
  t.is(report.Vars.status, 'unmapped');
  t.regex(report.Vars.notes[0], /reads \$vars where a value per item is computed/);
});

test("Filter: a computing left side and another node's paired item on the right are operands of its code step, run once per item", (t) => {
  const { report, steps } = imported(
    [node('Lines', 'code', { jsCode: 'return [];' }, 2), { ...node('Keep', 'filter', { conditions: conditions([cond('={{ $json.name.trim() }}', 'string', 'equals', "={{ $('Lines').item.json.wanted }}")]) }), typeVersion: 2.2 }],
    chain('Start', 'Lines', 'Keep'),
  );
  t.is(report.Keep.status, 'mapped');
  t.deepEqual(steps.keep.config.conditions, [{ operator: 'eq', operand: 'e0', value_operand: 'e1' }]);
  t.is(steps.keep.config.operands, '{{keep_expressions.output}}');
  t.like(steps.keep_expressions.config, { each: '{{lines.output}}', code: "return { e0: ($json.name.trim()), e1: ($('Lines').item.json.wanted) };", input: { nodes: { Lines: '{{lines.output}}' } } });
});

test('Switch: expression mode computes and checks each output index; allMatchingOutputs sends an item to every match; a bad number of outputs is unmapped', (t) => {
  const { report, steps } = imported(
    [
      { ...node('Route', 'switch', { mode: 'expression', numberOutputs: 2, output: '={{ $json.n % 2 }}' }), typeVersion: 3.2 },
      { ...node('Every', 'switch', { rules: { values: [{ conditions: conditions([cond('={{ $json.n }}', 'number', 'gt', 1)]) }, { conditions: conditions([cond('={{ $json.n }}', 'number', 'lt', 5)]) }] }, options: { allMatchingOutputs: true } }), typeVersion: 3.2 },
      { ...node('Zero', 'switch', { mode: 'expression', numberOutputs: 0, output: 0 }), typeVersion: 3.2 },
      node('A', 'noOp'), node('B', 'noOp'),
    ],
    { Start: { main: [[{ node: 'Route', type: 'main', index: 0 }, { node: 'Every', type: 'main', index: 0 }, { node: 'Zero', type: 'main', index: 0 }]] }, Route: { main: [[{ node: 'A', type: 'main', index: 0 }], [{ node: 'B', type: 'main', index: 0 }]] } },
  );
  t.is(report.Route.status, 'mapped');
  t.regex(report.Route.notes[0], /\{\{ \$json\.n % 2 \(the output index, checked to be 0 to 1\) \}\}/);
  t.deepEqual(steps.route.config.cases, [
    { conditions: [{ operand: 'e0', operator: 'eq', value: 0 }], next: ['a'] },
    { conditions: [{ operand: 'e0', operator: 'eq', value: 1 }], next: ['b'] },
  ]);
  t.regex(steps.route_expressions.config.code, /throw new Error\('The output ' \+ o \+ ' is not allowed: it has to be between 0 and 1'\)/);
  t.is(report.Every.status, 'mapped');
  t.true(steps.every.config.all_matching);
  t.is(report.Zero.status, 'unmapped');
  t.regex(report.Zero.notes[0], /a Switch with 0 outputs/);
});

const mergeOf = (parameters: Record<string, unknown>, typeVersion = 3) => {
  const { report, steps } = imported([node('L', 'code', { jsCode: 'return [];' }, 2), node('R', 'code', { jsCode: 'return [];' }, 2), { ...node('M', 'merge', parameters), typeVersion }], {
    Start: { main: [[{ node: 'L', type: 'main', index: 0 }, { node: 'R', type: 'main', index: 0 }]] },
    L: { main: [[{ node: 'M', type: 'main', index: 0 }]] },
    R: { main: [[{ node: 'M', type: 'main', index: 1 }]] },
  });
  return { row: report.M, config: steps.m?.config };
};

test('Merge: every join with its output, matches and clash options; position with unpaired items; choose an empty item; SQL and suffixes are unmapped with why', (t) => {
  const lists = ['{{l.output}}', '{{r.output}}'];
  const by = (joinMode: string, extra: Record<string, unknown> = {}) => mergeOf({ mode: 'combine', combineBy: 'combineByFields', fieldsToMatchString: 'id', joinMode, options: {}, ...extra });
  t.deepEqual(by('enrichInput2').config, { mode: 'by_fields', lists, fields: [{ left: 'id', right: 'id' }], join: 'right', deep: true, strict: true });
  t.is(by('keepEverything').row.status, 'mapped');
  t.like(by('keepEverything').config, { join: 'outer' });
  t.like(by('keepNonMatches').config, { join: 'anti', source_key: '_source' });
  t.like(by('keepNonMatches', { outputDataFrom: 'input2' }).config, { join: 'anti', output_from: 'second' });
  t.like(by('keepMatches', { outputDataFrom: 'input1' }).config, { join: 'inner', output_from: 'first' });
  t.like(by('enrichInput1', { options: { multipleMatches: 'first', clashHandling: { values: { resolveClash: 'preferInput1', mergeMode: 'shallowMerge' } } } }).config, { join: 'left', multiple: 'first', prefer: 'first' });
  t.is(by('enrichInput1', { options: { clashHandling: { values: { mergeMode: 'shallowMerge' } } } }).config.deep, undefined);
  const fuzzy = by('keepMatches', { options: { fuzzyCompare: true } });
  t.is(fuzzy.row.status, 'approximated');
  t.regex(fuzzy.row.notes[0], /fuzzy compare: a number matches its text/);
  const suffix = by('keepEverything', { options: { clashHandling: { values: { resolveClash: 'addSuffix' } } } });
  t.is(suffix.row.status, 'unmapped');
  t.regex(suffix.row.notes[0], /with a suffix \(_1, _2\) has no equivalent/);
  const position = mergeOf({ mode: 'combine', combineBy: 'combineByPosition', options: { includeUnpaired: true, clashHandling: { values: { resolveClash: 'preferInput1' } } } });
  t.deepEqual(position.config, { mode: 'by_position', deep: true, lists: ['{{r.output}}', '{{l.output}}'], include_unpaired: true }, 'the preferred input goes last');
  t.deepEqual(mergeOf({ mode: 'chooseBranch', output: 'empty' }).config, { mode: 'choose', lists, choose: 'empty' });
  t.deepEqual(mergeOf({ mode: 'chooseBranch', useDataOfInput: 2 }).config, { mode: 'choose', lists, choose: 1 });
  const third = mergeOf({ mode: 'chooseBranch', useDataOfInput: 3 });
  t.is(third.row.status, 'unmapped');
  t.regex(third.row.notes[0], /choosing input 3, which it does not have/);
  const sql = mergeOf({ mode: 'combineBySql', query: 'SELECT * FROM input1 LEFT JOIN input2 ON input1.id = input2.id' });
  t.is(sql.row.status, 'unmapped');
  t.regex(sql.row.notes[0], /alasql over input1\.\.inputN, and there is no SQL engine over items here/);
});

test('Wait: until a date-time is a timer; a webhook or form resume is approximated with what differs; Respond: text, no data, a responseKey; binary and JWT unmapped with why; Loop reset unmapped with why', (t) => {
  const { report, steps } = imported(
    [
      { ...node('At', 'wait', { resume: 'specificTime', dateTime: '={{ $json.when }}' }), typeVersion: 1.1 },
      { ...node('Hook', 'wait', { resume: 'webhook', httpMethod: 'POST', limitWaitTime: true, options: {} }), typeVersion: 1.1 },
      { ...node('Form', 'wait', { resume: 'form' }), typeVersion: 1.1 },
      { ...node('All', 'respondToWebhook', { respondWith: 'allIncomingItems', options: { responseKey: 'data.items' } }), typeVersion: 1.1 },
      { ...node('Nothing', 'respondToWebhook', { respondWith: 'noData' }), typeVersion: 1.1 },
      { ...node('File', 'respondToWebhook', { respondWith: 'binary' }), typeVersion: 1.1 },
      { ...node('Token', 'respondToWebhook', { respondWith: 'jwt' }), typeVersion: 1.1 },
      { ...node('Loop', 'splitInBatches', { batchSize: 1, options: { reset: true } }), typeVersion: 3 },
    ],
    chain('Start', 'At', 'Hook', 'Form', 'All', 'Nothing', 'File', 'Token', 'Loop'),
  );
  t.is(report.At.status, 'mapped');
  t.deepEqual(steps.at.config, { wait_type: 'timer', until: '{{start.output.when}}', zone: 'UTC' });
  t.is(report.Hook.status, 'approximated');
  t.deepEqual(report.Hook.notes, [
    "resumed by POST /runs/{id}/resume with an input, which is the one item after the wait: not by n8n's resume URL ($execution.resumeUrl) and the item the call made ({headers, params, query, body})",
    'the wait has no time limit here (n8n went on with its input items when the limit passed)',
  ]);
  t.is((report.Form as Report & { items?: unknown }).status, 'approximated');
  t.regex(report.Form.notes[0], /not by the form n8n served/);
  t.deepEqual(steps.all.config.body, { data: { items: ['{{form.output.input}}'] } }, 'the items after a resumed wait are its input');
  t.deepEqual(steps.nothing.config, { status: 200, body: '', headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  t.is(report.File.status, 'unmapped');
  t.regex(report.File.notes[0], /items here carry no binary data/);
  t.is(report.Token.status, 'unmapped');
  t.regex(report.Token.notes[0], /signed with an n8n credential, which is never imported/);
  t.is(report.Loop.status, 'unmapped');
  t.regex(report.Loop.notes[0], /n8n starts it over with whatever reaches it .* loops do not nest: run the inner loop as a sub-workflow/);
});

const TOKEN = 'owner-token';
let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_import_n8n_flow', { links: ['sandbox/runner'] });
});
test.after.always(async () => k?.close());

async function runImport(nodes: unknown[], connections: Record<string, unknown>, input: unknown) {
  const res = await k.call('/api/v1/workflows/import', { method: 'POST', token: TOKEN, json: { format: 'n8n', data: { nodes: [node('Start', 'manualTrigger'), ...nodes], connections } } });
  if (res.status !== 201) throw new Error(res.text);
  const started = await k.call(`/api/v1/workflows/${res.body.workflow.id}/run`, { method: 'POST', token: TOKEN, json: { input, wait: true } });
  return runUntil(k, TOKEN, started.body.run_id ?? started.body.id, ['completed', 'failed', 'paused'], 60_000);
}

test.serial('bad input as n8n would fail on it: an output index out of range, a value that is no date-time, a wait until no date-time: the step fails with its reason', async (t) => {
  const route = await runImport([{ ...node('Route', 'switch', { mode: 'expression', numberOutputs: 2, output: '={{ $json.n }}' }), typeVersion: 3.2 }, node('A', 'noOp')], { Start: { main: [[{ node: 'Route', type: 'main', index: 0 }]] }, Route: { main: [[{ node: 'A', type: 'main', index: 0 }]] } }, { n: 5 });
  t.is(route.status, 'failed');
  t.is(receipt(route, 'route_expressions').status, 'failed');
  t.regex(JSON.stringify(receipt(route, 'route_expressions').error), /The output 5 is not allowed: it has to be between 0 and 1/);
  const due = await runImport([{ ...node('Due', 'filter', { conditions: conditions([cond('={{ $json.due }}', 'dateTime', 'before', '2024-01-01')]) }), typeVersion: 2.2 }], chain('Start', 'Due'), { due: 'next tuesday' });
  t.is(due.status, 'failed');
  t.regex(JSON.stringify(receipt(due, 'due').error), /config\.conditions\.0 \(left\): 'next tuesday' is not a date-time/);
  const at = await runImport([{ ...node('At', 'wait', { resume: 'specificTime', dateTime: '={{ $json.when }}' }), typeVersion: 1.1 }], chain('Start', 'At'), { when: 'whenever' });
  t.is(at.status, 'failed');
  t.regex(JSON.stringify(receipt(at, 'at').error), /config\.until: 'whenever' is not a date-time/);
});
