import { DateTime, Info, type DurationLikeObject } from 'luxon';

/**
 * Date and time operations in IANA time zones with luxon, shared by the `datetime` agent tool
 * and the `datetime` workflow node: one declaration of their arguments, one implementation.
 * Times without an offset are wall-clock times in `zone` (default UTC); adding calendar units
 * (days, months) keeps the wall time across a DST change, adding hours adds real hours.
 */
export const DATETIME_OPS = ['now', 'parse', 'format', 'add', 'diff', 'convert'] as const;
const UNITS = ['years', 'quarters', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds', 'milliseconds'] as const;
type Unit = (typeof UNITS)[number];

/** an IANA zone name (Intl would also take fixed offsets such as '+05:00') */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/;
const DATETIME = { type: 'string', minLength: 1, maxLength: 100 };
const ZONE = { type: 'string', minLength: 1, maxLength: 64, description: "IANA time zone, e.g. 'Europe/Berlin', or 'UTC'" };
const AMOUNT = { type: 'number', minimum: -1_000_000, maximum: 1_000_000 };
const requires = (op: string, ...names: string[]) => ({ if: { properties: { op: { const: op } } }, then: { required: names } });

/** The arguments' properties (JSON Schema), each with a default where it has one and an example. */
export const DATETIME_PROPERTIES = {
  op: { type: 'string', enum: [...DATETIME_OPS], description: 'now, parse, format, add, diff or convert.', examples: ['convert'] },
  datetime: { ...DATETIME, description: 'The date-time to work on (ISO 8601 preferred; RFC 2822, HTTP and SQL are read too).', examples: ['2025-03-30T01:30:00Z'] },
  to: { ...DATETIME, description: 'diff: the later date-time.', examples: ['2025-04-01T00:00:00Z'] },
  zone: { ...ZONE, default: 'UTC', examples: ['Europe/Berlin'] },
  to_zone: { ...ZONE, description: 'convert: the target IANA time zone; format and add: the zone the result is shown in (default: zone).', examples: ['America/New_York'] },
  format: { type: 'string', minLength: 1, maxLength: 200, description: "Luxon format tokens (format: how to write; parse: how to read), e.g. 'yyyy-MM-dd HH:mm'.", examples: ['cccc d LLLL yyyy'] },
  locale: { type: 'string', pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$', maxLength: 35, default: 'en-US', description: "BCP 47 locale for format, e.g. 'de-DE'.", examples: ['de-DE'] },
  amount: {
    type: 'object',
    properties: Object.fromEntries(UNITS.map((u) => [u, AMOUNT])),
    additionalProperties: false,
    description: 'add: the units to add (negative to subtract; days are calendar days in zone).',
    examples: [{ days: 1, hours: -2 }],
  },
  unit: { type: 'string', enum: [...UNITS], default: 'hours', description: 'diff: the unit of the answer.', examples: ['days'] },
} as const;

/** Which properties each op needs. */
export const DATETIME_REQUIREMENTS = [requires('parse', 'datetime'), requires('format', 'datetime', 'format'), requires('add', 'datetime', 'amount'), requires('diff', 'datetime', 'to'), requires('convert', 'datetime', 'to_zone')];

export interface DatetimeArgs {
  op: (typeof DATETIME_OPS)[number];
  datetime?: string;
  to?: string;
  zone?: string;
  to_zone?: string;
  format?: string;
  /** how to read `datetime` in every op but parse (Luxon tokens; parse reads it with `format`) */
  from_format?: string | null;
  locale?: string;
  amount?: Partial<Record<Unit, number>>;
  unit?: Unit;
}

/** Bad arguments: `code` says which kind (the tool turns it into a tool error, the node into a failed step). */
export class DatetimeInputError extends Error {
  constructor(message: string, readonly code: 'UNKNOWN_ZONE' | 'NONEXISTENT_TIME' | 'BAD_DATETIME') {
    super(message);
  }
}

export interface DatetimeOptions {
  now?: () => DateTime;
  /** a wall time that does not exist in its zone (the hour a DST change skips): moved forward (`shift`, default) or refused */
  gaps?: 'shift' | 'refuse';
}

export function zoneOf(name: string | undefined, field: string): string {
  const zone = name ?? 'UTC';
  if (zone !== 'UTC' && !(IANA_NAME.test(zone) && Info.isValidIANAZone(zone))) throw new DatetimeInputError(`${field} '${zone}' is not an IANA time zone (e.g. 'Europe/Berlin', 'America/New_York', 'UTC').`, 'UNKNOWN_ZONE');
  return zone;
}

function valid(dt: DateTime, what: string): DateTime {
  if (!dt.isValid) throw new DatetimeInputError(`${what}: ${dt.invalidExplanation ?? dt.invalidReason ?? 'not a valid date-time'}.`, 'BAD_DATETIME');
  return dt;
}

const WALL = 'yyyy-MM-dd HH:mm:ss.SSS';

/** A wall time read in `zone` that luxon had to move (it falls in a DST gap) is refused. */
function refuseGap(dt: DateTime, read: (zone: string) => DateTime, zone: string, text: string, field: string): DateTime {
  const asUtc = read('utc');
  // the same instant both ways: the text carried its own offset
  if (!asUtc.isValid || asUtc.toMillis() === dt.toMillis()) return dt;
  if (asUtc.toFormat(WALL) !== dt.toFormat(WALL)) {
    throw new DatetimeInputError(`${field} '${text}' does not exist in ${zone}: the clocks skip that hour for daylight saving time (give an offset, or a time outside the gap).`, 'NONEXISTENT_TIME');
  }
  return dt;
}

type Reader = (text: string, opts: { zone: string; setZone: boolean }) => DateTime;

function parse(text: string, zone: string, format: string | undefined, field: string, gaps: 'shift' | 'refuse'): DateTime {
  const readers: Reader[] = format ? [(t, o) => DateTime.fromFormat(t, format, o)] : [DateTime.fromISO, DateTime.fromRFC2822, DateTime.fromHTTP, DateTime.fromSQL];
  for (const reader of readers) {
    const dt = reader(text, { zone, setZone: false });
    if (!dt.isValid) continue;
    return gaps === 'refuse' ? refuseGap(dt, (z) => reader(text, { zone: z, setZone: false }), zone, text, field) : dt.setZone(zone);
  }
  if (format) throw new DatetimeInputError(`${field} '${text}' does not match the format '${format}'.`, 'BAD_DATETIME');
  throw new DatetimeInputError(`${field} '${text}' is not a date-time that can be read (ISO 8601 such as 2025-03-30T02:30:00, RFC 2822, HTTP or SQL; or give \`format\`).`, 'BAD_DATETIME');
}

export function view(dt: DateTime) {
  return {
    iso: dt.toISO(),
    zone: dt.zoneName,
    offset: dt.toFormat('ZZ'),
    is_dst: dt.isInDST,
    epoch_ms: dt.toMillis(),
    date: dt.toISODate(),
    time: dt.toFormat('HH:mm:ss'),
    weekday: dt.setLocale('en-US').weekdayLong,
  };
}

export function runDatetime(args: DatetimeArgs, opts: DatetimeOptions = {}): unknown {
  const gaps = opts.gaps ?? 'shift';
  const zone = zoneOf(args.zone, 'zone');
  const at = () => parse(args.datetime!, zone, args.op === 'parse' ? args.format : args.from_format ?? undefined, 'datetime', gaps);
  const shown = (dt: DateTime) => (args.to_zone ? dt.setZone(zoneOf(args.to_zone, 'to_zone')) : dt);
  switch (args.op) {
    case 'now':
      return view((opts.now ?? (() => DateTime.utc()))().setZone(zone));
    case 'parse':
      return view(at());
    case 'format': {
      const dt = shown(at()).setLocale(args.locale ?? 'en-US');
      return { text: dt.toFormat(args.format!), ...view(dt) };
    }
    case 'add':
      return view(shown(valid(at().plus(args.amount as DurationLikeObject), 'the result is out of range')));
    case 'diff': {
      const unit = args.unit ?? 'hours';
      const to = parse(args.to!, zone, undefined, 'to', gaps);
      const duration = to.diff(at(), unit);
      return { value: duration.as(unit), unit, iso_duration: to.diff(at(), ['days', 'hours', 'minutes', 'seconds']).toISO() };
    }
    case 'convert':
      return view(at().setZone(zoneOf(args.to_zone, 'to_zone')));
  }
}

/** Reads a date-time as every op does (ISO 8601, RFC 2822, HTTP, SQL, or Luxon tokens `format`), local times in `zone`. */
export const readDatetime: (text: string, zone: string, format: string | undefined, field: string, gaps: 'shift' | 'refuse') => DateTime = parse;
