import test from 'ava';
import { parseCsv, CsvSyntaxError } from '../plugins/tasks/domain/csv.ts';
import { parseMentions } from '../plugins/tasks/domain/mentions.ts';
import { sniffContentType } from '../plugins/tasks/domain/sniff.ts';
import { missingVariables, placeholdersOf, render } from '../plugins/tasks/domain/template.ts';
import { clockChangesOnMove, dueDates, slaState } from '../plugins/tasks/domain/sla.ts';
import { readHeader, readRow } from '../plugins/tasks/domain/import-rows.ts';
import { isDateText } from '../plugins/tasks/domain/dates.ts';
import { defaultBoardPreferences, preferenceProblems } from '../plugins/tasks/domain/board-preferences.ts';
import { countableFromCounters, listQuery, orderBy, parseSort } from '../plugins/tasks/db/list-query.ts';

test('csv: quotes, escaped quotes, CRLF, multi-line fields, BOM, blank lines', (t) => {
  const records = parseCsv('\uFEFFa,b\r\n"x, y","say ""hi"""\r\n\r\n"two\nlines",\n');
  t.deepEqual(records, [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, fields: ['x, y', 'say "hi"'] },
    { line: 4, fields: ['two\nlines', ''] },
  ]);
  t.deepEqual(parseCsv('a\nb'), [{ line: 1, fields: ['a'] }, { line: 2, fields: ['b'] }], 'no final newline needed');
  t.throws(() => parseCsv('a\n"open'), { instanceOf: CsvSyntaxError, message: /line 2/ });
  t.throws(() => parseCsv('a"b'), { instanceOf: CsvSyntaxError });
  t.throws(() => parseCsv('"a"b'), { instanceOf: CsvSyntaxError });
});

test('mentions: agents and users, each once, not in code or e-mail addresses', (t) => {
  t.deepEqual(parseMentions('@agent:a-1 hi @user:u.2, and @agent:a-1 again.'), [{ type: 'agent', id: 'a-1' }, { type: 'user', id: 'u.2' }]);
  t.deepEqual(parseMentions('mail me at me@agent:x.com'), []);
  t.deepEqual(parseMentions('`@agent:quoted` and\n```\n@agent:fenced\n```\n@agent:real'), [{ type: 'agent', id: 'real' }]);
  t.deepEqual(parseMentions('@robot:x @agent: @agent:'), []);
});

test('sniffing trusts the bytes, not the name or the declared type', (t) => {
  const bytes = (...b: number[]) => new Uint8Array(b);
  t.is(sniffContentType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0), 'x.txt'), 'image/png');
  t.is(sniffContentType(bytes(0xff, 0xd8, 0xff, 0xe0), 'a.png'), 'image/jpeg');
  t.is(sniffContentType(new TextEncoder().encode('%PDF-1.7\n'), 'a.doc'), 'application/pdf');
  t.is(sniffContentType(bytes(0x7f, 0x45, 0x4c, 0x46, 2), 'cat.png'), 'application/x-executable');
  t.is(sniffContentType(bytes(0x4d, 0x5a, 0x90, 0), 'setup.pdf'), 'application/x-executable');
  t.is(sniffContentType(new TextEncoder().encode('hello'), 'a.png'), 'text/plain');
  t.is(sniffContentType(new TextEncoder().encode('a,b\n1,2\n'), 'data.csv'), 'text/csv');
  t.is(sniffContentType(new TextEncoder().encode('<svg xmlns="x"></svg>'), 'a.png'), 'image/svg+xml');
  t.is(sniffContentType(new TextEncoder().encode('<!DOCTYPE html><p>'), 'a.txt'), 'text/html');
  t.is(sniffContentType(bytes(0x50, 0x4b, 0x03, 0x04, ...new TextEncoder().encode('word/document.xml')), 'x.zip'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
  t.is(sniffContentType(bytes(0x50, 0x4b, 0x03, 0x04, 1, 2), 'x.docx'), 'application/zip');
  t.is(sniffContentType(bytes(1, 0, 2, 3), 'a.txt'), 'application/octet-stream');
  t.is(sniffContentType(bytes(0xc3), 'a.txt', true), 'application/octet-stream', 'a lone lead byte is not UTF-8 when the file ends there');
  t.is(sniffContentType(bytes(0x61, 0xc3), 'a.txt', false), 'text/plain', 'a head may end inside a character');
  t.is(sniffContentType(new Uint8Array(), 'empty.bin'), 'text/plain');
});

test('templates: placeholders found once each, escaped braces kept, missing ones listed', (t) => {
  t.deepEqual(placeholdersOf('Hi {{ name }} {{name}}', '{{day}} \\{{not_me}}', null), ['name', 'day']);
  t.deepEqual(missingVariables({ name: 'x' }, 'Hi {{name}} on {{day}} at {{ time }}'), ['day', 'time']);
  t.is(render('Hi {{name}}, {{n}} tasks; \\{{literal}}', { name: 'Ann', n: 3 }), 'Hi Ann, 3 tasks; {{literal}}');
  t.deepEqual(missingVariables({ toString: 'x' } as never, '{{constructor}}'), ['constructor'], 'inherited names are not values');
  t.throws(() => render('{{x}}', {}), { message: /'x'/ });
});

test('SLA: due dates per priority, breach against the clock, clocks stop on moves', (t) => {
  const start = new Date('2030-01-01T00:00:00Z');
  const targets = { '1': { response_minutes: 10, resolution_minutes: 60 }, '2': { resolution_minutes: 120 } };
  t.deepEqual(dueDates(targets, 1, start), { response_due_at: new Date('2030-01-01T00:10:00Z'), resolution_due_at: new Date('2030-01-01T01:00:00Z') });
  t.deepEqual(dueDates(targets, 2, start), { response_due_at: null, resolution_due_at: new Date('2030-01-01T02:00:00Z') });
  t.deepEqual(dueDates(targets, 5, start), { response_due_at: null, resolution_due_at: null });
  const clocks = { ...dueDates(targets, 1, start), responded_at: null, resolved_at: null };
  t.like(slaState(clocks, new Date('2030-01-01T00:05:00Z')), { breached: false, due_at: '2030-01-01T00:10:00.000Z' });
  t.like(slaState(clocks, new Date('2030-01-01T00:10:00Z')), { breached: false }, 'exactly at the due date is in time');
  t.like(slaState(clocks, new Date('2030-01-01T00:11:00Z')), { breached: true, breached_at: '2030-01-01T00:10:00.000Z' });
  const answered = { ...clocks, responded_at: new Date('2030-01-01T00:09:00Z') };
  t.like(slaState(answered, new Date('2030-01-01T00:30:00Z')), { breached: false, due_at: '2030-01-01T01:00:00.000Z' });
  t.like(slaState({ ...answered, resolved_at: new Date('2030-01-01T00:50:00Z') }, new Date('2030-02-01T00:00:00Z')), { breached: false, due_at: null });
  t.like(slaState({ ...answered, resolved_at: new Date('2030-01-01T02:00:00Z') }, new Date('2030-02-01T00:00:00Z')), { breached: true, breached_at: '2030-01-01T01:00:00.000Z' });

  const now = new Date('2030-01-01T00:20:00Z');
  t.deepEqual(clockChangesOnMove('created', 'in_progress', { responded_at: null, resolved_at: null }, now), { responded_at: now });
  t.deepEqual(clockChangesOnMove('created', 'pending', { responded_at: null, resolved_at: null }, now), {});
  t.deepEqual(clockChangesOnMove('in_progress', 'completed', { responded_at: start, resolved_at: null }, now), { resolved_at: now });
  t.deepEqual(clockChangesOnMove('completed', 'pending', { responded_at: start, resolved_at: now }, now), { resolved_at: null });
});

test('dates: ISO shapes of real calendar days only', (t) => {
  for (const ok of ['2030-01-31', '2030-01-31T17:00:00Z', '2030-01-31T17:00:00.123+02:00', '2028-02-29']) t.true(isDateText(ok), ok);
  for (const bad of ['2030-02-30', '2029-02-29', 'tomorrow', '31/01/2030', '2030-1-3', '', '2030-13-01']) t.false(isDateText(bad), bad);
});

test('import rows: header checks and per-row problems named by line and column', (t) => {
  t.deepEqual(readHeader(['Title', 'PRIORITY']).problems, []);
  t.is(readHeader(['priority']).problems[0].message, "The header needs a 'title' column.");
  t.is(readHeader(['title', 'title']).problems.length, 1);
  const { columns } = readHeader(['title', 'priority', 'assignee']);
  t.like(readRow({ line: 7, fields: ['x', ' 2 ', 'agent:bot'] }, columns).task, { line: 7, title: 'x', priority: 2, assignee: { type: 'agent', id: 'bot' } });
  t.deepEqual(readRow({ line: 8, fields: ['x', '0', 'robot'] }, columns).problems.map((p) => p.field), ['rows[8].priority', 'rows[8].assignee']);
  t.deepEqual(readRow({ line: 9, fields: ['x'] }, columns).problems.map((p) => p.field), ['rows[9].fields']);
});

test('board preferences: defaults are valid; unknown, repeated and missing columns are named', (t) => {
  t.deepEqual(preferenceProblems(defaultBoardPreferences()), []);
  const prefs = { mode: 'board' as const, visible_columns: ['todo', 'x'], column_order: ['done', 'done', 'todo', 'scheduled', 'in_progress'] };
  const problems = preferenceProblems(prefs);
  t.deepEqual(problems.map((p) => `${p.field}:${p.type}`), ['visible_columns:column', 'column_order:unique', 'column_order:permutation']);
});

test('list query: sorting, scoping and the counter shortcut', (t) => {
  t.deepEqual(parseSort('-priority,created_at'), [{ field: 'priority', descending: true }, { field: 'created_at', descending: false }]);
  t.is(parseSort('priority;drop table tasks'), null);
  t.is(parseSort(''), null);
  t.is(orderBy([{ field: 'deadline', descending: false }]), 'deadline ASC NULLS LAST, id ASC');
  const q = listQuery('e-1', { status: ['pending'], q: "50%_'" }, [{ field: 'created_at', descending: true }], { limit: 5, offset: 0 }, new Date());
  t.regex(q.sql, /^SELECT \*, .* AS page_key FROM tasks WHERE entity_id = \$1 AND status = \$2 /);
  t.deepEqual(q.bind.slice(0, 3), ['e-1', 'pending', "%50\\%\\_'%"]);
  t.true(countableFromCounters({ status: ['pending'], workspace_id: 'w' }));
  t.false(countableFromCounters({ status: ['pending'], q: 'x' }));
});

test('move rules: the lists one SQL statement applies are the state machine and the SLA clocks, status by status', async (t) => {
  const { moveRules } = await import('../plugins/tasks/domain/move-rules.ts');
  const { TASK_STATUSES, checkMove } = await import('../plugins/tasks/domain/state-machine.ts');
  const now = new Date();
  for (const to of TASK_STATUSES) {
    const rules = moveRules(to);
    t.deepEqual(rules.legalFrom, TASK_STATUSES.filter((from) => checkMove(from, to).ok), `legal into ${to}`);
    for (const from of rules.legalFrom) {
      const fresh = clockChangesOnMove(from, to, { responded_at: null, resolved_at: null }, now);
      const resolved = clockChangesOnMove(from, to, { responded_at: now, resolved_at: now }, now);
      t.is(rules.respondsFrom.includes(from), 'responded_at' in fresh, `${from} -> ${to} responds`);
      t.is(rules.resolvesFrom.includes(from), fresh.resolved_at instanceof Date, `${from} -> ${to} resolves`);
      t.is(rules.reopensFrom.includes(from), resolved.resolved_at === null, `${from} -> ${to} reopens`);
    }
  }
  t.deepEqual(moveRules('pending', 'failed').legalFrom, ['failed'], 'onlyFrom narrows the legal sources');
  t.deepEqual(moveRules('pending', 'in_progress').legalFrom, ['in_progress']);
  t.deepEqual(moveRules('created').legalFrom, [], 'nothing moves back to created');
});
