import type { DateTime, DurationUnit } from 'luxon';
import { DatetimeInputError, readDatetime, view, zoneOf } from '../../kernel/datetime/ops.ts';

/**
 * The node's calendar operations beyond the shared ones (kernel/datetime/ops.ts): rounding to
 * the start of a calendar unit, extracting one part of a date, and a difference in several
 * units at once. All in `zone`, so a day or a week starts at local midnight whatever DST does.
 */
export const ROUND_UNITS = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second'] as const;
export const DATE_PARTS = ['year', 'quarter', 'month', 'week', 'weekday', 'day', 'day_of_year', 'hour', 'minute', 'second', 'millisecond'] as const;
export const DIFF_UNITS = ['years', 'quarters', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds', 'milliseconds'] as const;

export interface CalendarArgs {
  op: 'round' | 'extract' | 'diff';
  datetime: string;
  to?: string;
  zone?: string;
  from_format?: string | null;
  round_to?: (typeof ROUND_UNITS)[number];
  direction?: 'down' | 'up';
  part?: (typeof DATE_PARTS)[number];
  units?: (typeof DIFF_UNITS)[number][] | null;
}

const PART_READERS: Record<(typeof DATE_PARTS)[number], (dt: DateTime) => number> = {
  year: (dt) => dt.year,
  quarter: (dt) => dt.quarter,
  month: (dt) => dt.month,
  week: (dt) => dt.weekNumber,
  weekday: (dt) => dt.weekday,
  day: (dt) => dt.day,
  day_of_year: (dt) => dt.ordinal,
  hour: (dt) => dt.hour,
  minute: (dt) => dt.minute,
  second: (dt) => dt.second,
  millisecond: (dt) => dt.millisecond,
};

/** round, extract, or diff in several units; bad input throws DatetimeInputError. */
export function runCalendar(args: CalendarArgs): Record<string, unknown> {
  const zone = zoneOf(args.zone, 'zone');
  const at = readDatetime(args.datetime, zone, args.from_format ?? undefined, 'datetime', 'refuse');
  switch (args.op) {
    case 'round': {
      const unit = args.round_to!;
      // up: the start of the unit after the one the date is in (a date on a boundary moves on too)
      const rounded = args.direction === 'up' ? at.plus({ [unit]: 1 }).startOf(unit) : at.startOf(unit);
      if (!rounded.isValid) throw new DatetimeInputError('the result is out of range.', 'BAD_DATETIME');
      return view(rounded);
    }
    case 'extract':
      return { value: PART_READERS[args.part!](at), part: args.part, ...view(at) };
    case 'diff': {
      const units = (args.units?.length ? args.units : ['hours']) as DurationUnit[];
      const to = readDatetime(args.to!, zone, args.from_format ?? undefined, 'to', 'refuse');
      const duration = to.diff(at, units);
      return { values: duration.toObject(), units, iso_duration: duration.toISO() };
    }
  }
}
