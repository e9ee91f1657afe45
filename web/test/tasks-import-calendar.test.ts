import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/problem';
import { previewCsv, problemsByRow } from '../src/pages/tasks/csv-import';
import { byDay, dayKey, parseDayKey, rangeOf, step, visibleDays } from '../src/pages/tasks/calendar';
import { toBindingBody, emptyBinding, describeTrigger, VariablesJsonError } from '../src/pages/bindings/binding-form';

describe('CSV preview', () => {
  it('reads the header and numbers rows as the server does (header = row 1), with quoted commas and new lines', () => {
    const p = previewCsv('\uFEFFTitle,Priority\r\n"Reset, password",1\r\n"Multi\nline",2\r\n\r\n');
    expect(p.header).toEqual(['Title', 'Priority']);
    expect(p.rows).toEqual([{ line: 2, cells: ['Reset, password', '1'] }, { line: 3, cells: ['Multi\nline', '2'] }]);
    expect(p.parseErrors).toEqual([]);
  });

  it('tells an unbalanced quote', () => {
    expect(previewCsv('title\n"open quote\n').parseErrors.length).toBeGreaterThan(0);
  });

  it("groups a 422's problems by row, the file's own apart", () => {
    const err = new ApiError({ title: 'Validation failed', status: 422, errors: [
      { field: 'rows[3].status', message: "Row 3: status 'done' is not a status" },
      { field: 'rows[3].priority', message: "Row 3: priority '6'" },
      { field: 'rows[5].title', message: 'Row 5: title is required' },
      { field: 'file', message: 'The CSV file must be UTF-8 text.' },
    ] });
    expect(problemsByRow(err)).toEqual([
      { row: null, problems: [{ column: 'file', message: 'The CSV file must be UTF-8 text.' }] },
      { row: 3, problems: [{ column: 'status', message: "Row 3: status 'done' is not a status" }, { column: 'priority', message: "Row 3: priority '6'" }] },
      { row: 5, problems: [{ column: 'title', message: 'Row 5: title is required' }] },
    ]);
    expect(problemsByRow(new Error('x'))).toEqual([]);
  });
});

describe('calendar', () => {
  it('shows whole Monday-first weeks covering the month', () => {
    const days = visibleDays('month', new Date(2026, 1, 14)); // February 2026 starts on a Sunday
    expect(days.length % 7).toBe(0);
    expect(dayKey(days[0]!)).toBe('2026-01-26');
    expect(dayKey(days[days.length - 1]!)).toBe('2026-03-01');
    expect(days.every((d, i) => i === 0 || d.getTime() > days[i - 1]!.getTime())).toBe(true);
  });

  it('shows a week Monday to Sunday, and steps by weeks and months (31st to a short month)', () => {
    const week = visibleDays('week', new Date(2026, 10, 25));
    expect(week.map(dayKey)).toEqual(['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29']);
    expect(dayKey(step('week', new Date(2026, 11, 29), 1))).toBe('2027-01-05');
    expect(dayKey(step('month', new Date(2026, 0, 31), 1))).toBe('2026-02-01');
  });

  it('asks for the deadlines of exactly the shown days', () => {
    const week = visibleDays('week', new Date(2026, 10, 25));
    const r = rangeOf(week);
    expect(new Date(r.deadline_from).getTime()).toBe(new Date(2026, 10, 23).getTime());
    expect(new Date(r.deadline_to).getTime()).toBe(new Date(2026, 10, 30).getTime() - 1);
  });

  it('puts tasks on the local day of their deadline, leaves out those without', () => {
    const at = new Date(2026, 10, 25, 23, 30);
    const grouped = byDay([{ id: 'a', deadline: at.toISOString() }, { id: 'b', deadline: null }, { id: 'c', deadline: new Date(2026, 10, 25, 0, 5).toISOString() }]);
    expect([...grouped.keys()]).toEqual(['2026-11-25']);
    expect(grouped.get('2026-11-25')!.map((t) => t.id)).toEqual(['a', 'c']);
  });

  it('reads only real days from the URL', () => {
    expect(parseDayKey('2026-02-30')).toBeNull();
    expect(parseDayKey('nonsense')).toBeNull();
    expect(dayKey(parseDayKey('2028-02-29')!)).toBe('2028-02-29');
  });
});

describe('binding form', () => {
  it('sends only the trigger fields of its type', () => {
    const f = { ...emptyBinding('Europe/Berlin'), workflow_id: 'w1', event: 'x' };
    expect(toBindingBody(f, 'ws').trigger).toEqual({ type: 'manual' });
    expect(toBindingBody({ ...f, trigger: 'schedule', schedule: ' 0 9 * * * ' }, 'ws').trigger).toEqual({ type: 'schedule', schedule: '0 9 * * *', timezone: 'Europe/Berlin' });
    expect(toBindingBody({ ...f, trigger: 'event' }, 'ws').trigger).toEqual({ type: 'event', event: 'x' });
    expect(toBindingBody(f, 'ws').workspace_id).toBe('ws');
    expect(() => toBindingBody({ ...f, variables: '[]' }, 'ws')).toThrow(VariablesJsonError);
    expect(describeTrigger({ trigger: { type: 'schedule', schedule: '0 9 * * *', timezone: 'UTC' } as never })).toBe('schedule 0 9 * * * (UTC)');
  });
});
