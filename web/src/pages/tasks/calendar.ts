/** Calendar arithmetic in the browser's local time: weeks start on Monday, days are keyed `YYYY-MM-DD`. */

export type CalendarView = 'month' | 'week';

export function dayKey(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export function parseDayKey(key: string | null | undefined): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(key ?? '');
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(d.getTime()) || dayKey(d) !== key ? null : d;
}

export function addDays(d: Date, n: number): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + n);
}

export function startOfWeek(d: Date): Date {
  return addDays(d, -((d.getDay() + 6) % 7));
}

/** The days shown: a week, or the whole weeks (Monday first) that cover the month. */
export function visibleDays(view: CalendarView, anchor: Date): Date[] {
  if (view === 'week') return Array.from({ length: 7 }, (_, i) => addDays(startOfWeek(anchor), i));
  const first = new Date(anchor.getFullYear(), anchor.getMonth(), 1);
  const last = new Date(anchor.getFullYear(), anchor.getMonth() + 1, 0);
  const start = startOfWeek(first);
  const days: Date[] = [];
  for (let d = start; d <= last || days.length % 7 !== 0; d = addDays(d, 1)) days.push(d);
  return days;
}

/** The deadline range to ask the API for: the first shown day's start to the last shown day's end, as instants. */
export function rangeOf(days: Date[]): { deadline_from: string; deadline_to: string } {
  const first = days[0]!;
  const last = days[days.length - 1]!;
  return { deadline_from: first.toISOString(), deadline_to: new Date(addDays(last, 1).getTime() - 1).toISOString() };
}

/** Where the previous/next buttons go. */
export function step(view: CalendarView, anchor: Date, direction: 1 | -1): Date {
  return view === 'week' ? addDays(anchor, 7 * direction) : new Date(anchor.getFullYear(), anchor.getMonth() + direction, 1);
}

/** Tasks by the local day of their deadline (tasks without one are left out). */
export function byDay<T extends { deadline?: string | null }>(tasks: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of tasks) {
    if (!t.deadline) continue;
    const key = dayKey(new Date(t.deadline));
    out.set(key, [...(out.get(key) ?? []), t]);
  }
  return out;
}
