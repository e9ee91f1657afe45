import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys } from '../../hooks/queries';
import { QueryView } from '../../ui/states';
import { label } from '../board/moves';
import { byDay, dayKey, parseDayKey, rangeOf, step, visibleDays, type CalendarView } from './calendar';

const LIMIT = 200;
const WEEKDAYS = Array.from({ length: 7 }, (_, i) => new Date(2024, 0, 1 + i).toLocaleDateString(undefined, { weekday: 'short' }));

/** Tasks by deadline, a month or a week at a time; the shown range and view live in the URL. */
export function TaskCalendar({ workspace }: { workspace?: string }): ReactNode {
  const [params, setParams] = useSearchParams();
  const view: CalendarView = params.get('cal') === 'week' ? 'week' : 'month';
  const anchor = parseDayKey(params.get('day')) ?? new Date();
  const days = visibleDays(view, anchor);
  const go = (patch: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) next.set(k, v);
    setParams(next);
  };
  const query = { ...rangeOf(days), workspace: workspace || undefined, sort: 'deadline', limit: LIMIT };
  const tasks = useQuery({ queryKey: [...keys.tasks, 'calendar', query], queryFn: () => unwrap(api.GET('/api/v1/tasks', { params: { query } })), placeholderData: keepPreviousData });
  const title = view === 'month'
    ? anchor.toLocaleDateString(undefined, { month: 'long', year: 'numeric' })
    : `${days[0]!.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })} – ${days[6]!.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' })}`;
  const today = dayKey(new Date());
  return (
    <div className="calendar">
      <div className="page-head">
        <h2 aria-live="polite">{title}</h2>
        <div className="actions">
          <div role="group" aria-label="Calendar view" className="segmented">
            <button type="button" aria-pressed={view === 'month'} onClick={() => go({ cal: 'month' })}>Month</button>
            <button type="button" aria-pressed={view === 'week'} onClick={() => go({ cal: 'week' })}>Week</button>
          </div>
          <button type="button" onClick={() => go({ day: dayKey(step(view, anchor, -1)) })}>Previous {view}</button>
          <button type="button" onClick={() => go({ day: today })}>Today</button>
          <button type="button" onClick={() => go({ day: dayKey(step(view, anchor, 1)) })}>Next {view}</button>
        </div>
      </div>
      <QueryView query={tasks} what="tasks">
        {(data) => {
          const grouped = byDay(data.items);
          return (
            <>
              {data.total > data.items.length && <p className="notice">Showing the first {data.items.length} of {data.total} tasks due in this range; narrow it with the week view or a workspace.</p>}
              {data.total === 0 && <p className="muted">No task is due in this {view}. Tasks appear here by their deadline.</p>}
              <div className={`cal-grid cal-${view}`} role="grid" aria-label={`Tasks due, ${title}`}>
                <div role="row" className="cal-row cal-head">
                  {WEEKDAYS.map((d) => <div role="columnheader" key={d}>{d}</div>)}
                </div>
                {Array.from({ length: days.length / 7 }, (_, w) => (
                  <div role="row" className="cal-row" key={w}>
                    {days.slice(w * 7, w * 7 + 7).map((d) => {
                      const key = dayKey(d);
                      const due = grouped.get(key) ?? [];
                      const outside = view === 'month' && d.getMonth() !== anchor.getMonth();
                      return (
                        <div role="gridcell" key={key} className={`cal-day${outside ? ' cal-outside' : ''}${key === today ? ' cal-today' : ''}`}>
                          <div className="cal-date">
                            <span aria-hidden="true">{d.getDate()}</span>
                            <span className="sr-only">{d.toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long' })}{key === today ? ', today' : ''}: {due.length} due</span>
                          </div>
                          <ul>
                            {due.map((t) => (
                              <li key={t.id}>
                                <Link to={`/tasks/${t.id}`} title={`${label(t.status)} · priority ${t.priority}`}>
                                  {view === 'week' && t.deadline ? `${new Date(t.deadline).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })} ` : ''}{t.title}
                                </Link>
                              </li>
                            ))}
                          </ul>
                        </div>
                      );
                    })}
                  </div>
                ))}
              </div>
            </>
          );
        }}
      </QueryView>
    </div>
  );
}
