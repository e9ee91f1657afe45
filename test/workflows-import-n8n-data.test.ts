import test from 'ava';
import { startWorkflowsKernel, type WorkflowsKernel } from './workflows-helpers.ts';

/**
 * The n8n import report for the data node options mapped here: Date & Time v1 and v2's round,
 * time between and extract, Sort random and code, Remove Duplicates' operations, Aggregate
 * merge lists and Edit Fields' selected or excepted fields; what differs is named, and what
 * cannot be carried over says why.
 */
const TOKEN = 'owner-token';
let k: WorkflowsKernel;
test.before(async () => {
  k = await startWorkflowsKernel('wf_import_n8n_data');
});
test.after.always(async () => k?.close());

type Report = { source: string; status: string; notes: string[]; step_id: string };
const node = (name: string, type: string, typeVersion: number, parameters: Record<string, unknown>) => ({ id: name, name, type: `n8n-nodes-base.${type}`, typeVersion, position: [0, 0], parameters });
const fan = (from: string, names: string[]) => ({ [from]: { main: [names.map((n) => ({ node: n, type: 'main', index: 0 }))] } });

async function importNodes(nodes: ReturnType<typeof node>[]) {
  const data = { name: 'Data', nodes: [node('Start', 'manualTrigger', 1, {}), ...nodes], connections: fan('Start', nodes.map((n) => n.name)), settings: { timezone: 'Europe/Berlin' } };
  const res = await k.call('/api/v1/workflows/import', { method: 'POST', token: TOKEN, json: { format: 'n8n', data, save: false } });
  return { res, report: Object.fromEntries(((res.body.report ?? []) as Report[]).map((r) => [r.source, r])), steps: Object.fromEntries(((res.body.definition?.steps ?? []) as { id: string; type: string; config: Record<string, unknown> }[]).map((s) => [s.id, s])) };
}

test.serial('Date & Time: round, time between, extract and version 1 are mapped with what differs; a moment token without a Luxon equivalent is unmapped naming it', async (t) => {
  const { res, report, steps } = await importNodes([
    node('Round', 'dateTime', 2, { operation: 'roundDate', date: '={{ $json.at }}', mode: 'roundUp', to: 'month', options: {} }),
    node('Between', 'dateTime', 2, { operation: 'getTimeBetweenDates', startDate: '={{ $json.a }}', endDate: '={{ $json.b }}', units: ['hour', 'day'], options: { isoString: true, includeInputFields: true } }),
    node('Extract', 'dateTime', 2, { operation: 'extractDate', date: '={{ $json.at }}', part: 'week', options: {} }),
    node('Old', 'dateTime', 1, { value: '={{ $json.at }}', toFormat: 'YYYY-MM-DD', options: { fromFormat: 'DD/MM/YYYY HH:mm' } }),
    node('Ordinal', 'dateTime', 1, { value: '={{ $json.at }}', custom: true, toFormat: 'MMMM Do' }),
    node('Odd unit', 'dateTime', 2, { operation: 'extractDate', date: '={{ $json.at }}', part: 'fortnight' }),
  ]);
  t.is(res.status, 200, res.text);
  t.is(report.Round.status, 'approximated');
  t.regex(report.Round.notes.join(' '), /rounding up gives the start of the next month/);
  t.like(steps.round, { type: 'datetime', config: { op: 'round', round_to: 'month', direction: 'up', zone: 'Europe/Berlin', item: {}, output_field: 'roundedDate', datetime: '{{item.at}}' } });
  t.like(steps.between.config, { op: 'diff', units: ['days', 'hours'], output_key: 'iso_duration', item: '{{item}}', output_field: 'timeDifference' });
  t.like(steps.extract.config, { op: 'extract', part: 'week', output_field: 'datePart' });
  t.is(report.Old.status, 'approximated');
  t.like(steps.old.config, { op: 'format', format: 'yyyy-MM-dd', from_format: 'dd/MM/yyyy HH:mm', output_field: 'data', item: '{{item}}' });
  t.is(report.Ordinal.status, 'unmapped');
  t.regex(report.Ordinal.notes[0], /the To Format 'MMMM Do' uses the moment\.js token 'Do', which has no Luxon equivalent/);
  t.is(report['Odd unit'].status, 'unmapped');
  t.regex(report['Odd unit'].notes[0], /the part 'fortnight' has no equivalent/);
});

test.serial('Sort random and code, Remove Duplicates, Aggregate merge lists and Edit Fields selected/except: report rows and step configs', async (t) => {
  const { res, report, steps } = await importNodes([
    node('Shuffle', 'sort', 1, { type: 'random' }),
    node('By code', 'sort', 1, { type: 'code', code: 'return a.json.n - b.json.n;' }),
    node('No return', 'sort', 1, { type: 'code', code: 'a.json.n - b.json.n;' }),
    node('Except', 'removeDuplicates', 2, { compare: 'allFieldsExcept', fieldsToExclude: 'at, meta.trace' }),
    node('Seen', 'removeDuplicates', 2, { operation: 'removeItemsSeenInPreviousExecutions', dedupeValue: '={{ $json.id }}', options: { scope: 'workflow' } }),
    node('Higher', 'removeDuplicates', 2, { operation: 'removeItemsSeenInPreviousExecutions', logic: 'removeItemsUpToStoredIncrementalKey', incrementalDedupeValue: '={{ $json.n }}' }),
    node('Clear', 'removeDuplicates', 2, { operation: 'clearDeduplicationHistory', mode: 'cleanDatabase' }),
    node('Merge lists', 'aggregate', 1, { fieldsToAggregate: { fieldToAggregate: [{ fieldToAggregate: 'tags' }] }, options: { mergeLists: true } }),
    node('Selected', 'set', 3.4, { includeOtherFields: true, include: 'selected', includeFields: 'id, meta.src', assignments: { assignments: [] } }),
    node('All but', 'set', 3.4, { includeOtherFields: true, include: 'except', excludeFields: 'password', assignments: { assignments: [] } }),
  ]);
  t.is(res.status, 200, res.text);
  t.is(report.Shuffle.status, 'mapped');
  t.like(steps.shuffle, { type: 'sort', config: { shuffle: true } });
  t.is(report['By code'].status, 'approximated');
  t.like(steps.by_code, { type: 'code', config: { dialect: 'n8n', code: 'return items.sort((a, b) => {\nreturn a.json.n - b.json.n;\n});', input: { mode: 'all' } } });
  t.regex(steps.no_return.config.code as string, /Sort code doesn't return/, 'code without return fails as n8n refuses it');
  t.is(report.Except.status, 'approximated');
  t.deepEqual(steps.except.config.exclude, ['at', 'meta.trace']);
  t.is(report.Seen.status, 'approximated');
  t.like(steps.seen.config, { keys: ['id'], scope: 'binding' });
  t.regex(report.Seen.notes.join(' '), /n8n's scope workflow shares them/);
  t.is(report.Higher.status, 'unmapped');
  t.regex(report.Higher.notes[0], /higher \(or later\) than any before/);
  t.is(report.Clear.status, 'unmapped');
  t.regex(report.Clear.notes[0], /clearing the deduplication history has no equivalent/);
  t.is(report['Merge lists'].status, 'mapped');
  t.deepEqual(steps.merge_lists.config.aggregations, [{ op: 'concat', field: 'tags', as: 'tags' }]);
  t.is(report.Selected.status, 'mapped');
  t.deepEqual(steps.selected.config.set, { id: '{{item.id}}', src: '{{item.meta.src}}' });
  t.is(steps.selected.config.base, undefined);
  t.is(report['All but'].status, 'mapped');
  t.like(steps.all_but.config, { base: '{{item}}', omit: ['password'] });
});

test.serial('a Python Code node is unmapped, saying what the code step lacks', async (t) => {
  const { res, report, steps } = await importNodes([node('Py', 'code', 2, { language: 'pythonNative', pythonCode: 'return _items' })]);
  t.is(res.status, 200, res.text);
  t.is(report.Py.status, 'unmapped');
  t.regex(report.Py.notes[0], /Docker engine is configured \(SANDBOX_DOCKER_HOST\).*not n8n's `_input`, `_json`, `_items` and `return`/);
  t.is(steps.py.type, 'note');
});
