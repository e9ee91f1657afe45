import { DateTime, Info, type DurationLikeObject } from 'luxon';
import { defineTool } from '../../kernel/tools/define.ts';
import { toolError } from '../../kernel/tools/errors.ts';
import type { ToolDeclaration } from '../../kernel/tools-contract.ts';

const OPS = ['now', 'parse', 'format', 'add', 'diff', 'convert'] as const;
const UNITS = ['years', 'quarters', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds', 'milliseconds'] as const;
type Unit = (typeof UNITS)[number];

/** an IANA zone name (Intl would also take fixed offsets such as '+05:00') */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/;
const DATETIME = { type: 'string', minLength: 1, maxLength: 100 };
const ZONE = { type: 'string', minLength: 1, maxLength: 64, description: "IANA time zone, e.g. 'Europe/Berlin', or 'UTC'" };
const AMOUNT = { type: 'number', minimum: -1_000_000, maximum: 1_000_000 };
const requires = (op: string, ...names: string[]) => ({ if: { properties: { op: { const: op } } }, then: { required: names } });

const declaration: ToolDeclaration = {
  name: 'datetime',
  description:
    "Dates and times in IANA time zones, DST-correct. op now: the current time (in `zone`). parse: read `datetime` (ISO 8601, RFC 2822, HTTP or SQL; or the Luxon tokens of `format`), local times taken in `zone`. format: write `datetime` with Luxon tokens `format` (e.g. 'yyyy-MM-dd HH:mm', 'cccc d LLLL') in `zone` and `locale`. add: add `amount` (negative to subtract; days are calendar days in `zone`). diff: `to` minus `datetime` in `unit`. convert: `datetime` shown in `to_zone`. Times without an offset are in `zone` (default UTC).",
  category: 'time',
  risk: 'low',
  side_effect: 'none',
  parameters: {
    type: 'object',
    properties: {
      op: { type: 'string', enum: [...OPS] },
      datetime: { ...DATETIME, description: 'the date-time to work on (ISO 8601 preferred)' },
      to: { ...DATETIME, description: 'diff: the later date-time' },
      zone: ZONE,
      to_zone: { ...ZONE, description: 'convert: the target IANA time zone' },
      format: { type: 'string', minLength: 1, maxLength: 200, description: 'Luxon format tokens' },
      locale: { type: 'string', pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$', maxLength: 35, description: "BCP 47 locale for format, e.g. 'de-DE' (default en-US)" },
      amount: {
        type: 'object',
        properties: Object.fromEntries(UNITS.map((u) => [u, AMOUNT])),
        additionalProperties: false,
        description: 'add: e.g. {"days": 1, "hours": -2}',
      },
      unit: { type: 'string', enum: [...UNITS], description: 'diff: the unit of the answer (default hours)' },
    },
    required: ['op'],
    additionalProperties: false,
    allOf: [requires('parse', 'datetime'), requires('format', 'datetime', 'format'), requires('add', 'datetime', 'amount'), requires('diff', 'datetime', 'to'), requires('convert', 'datetime', 'to_zone')],
  },
};

interface Args {
  op: (typeof OPS)[number];
  datetime?: string;
  to?: string;
  zone?: string;
  to_zone?: string;
  format?: string;
  locale?: string;
  amount?: Partial<Record<Unit, number>>;
  unit?: Unit;
}

function zoneOf(name: string | undefined, field: string): string {
  const zone = name ?? 'UTC';
  if (zone !== 'UTC' && !(IANA_NAME.test(zone) && Info.isValidIANAZone(zone))) throw toolError(`${field} '${zone}' is not an IANA time zone (e.g. 'Europe/Berlin', 'America/New_York', 'UTC').`);
  return zone;
}

function valid(dt: DateTime, what: string): DateTime {
  if (!dt.isValid) throw toolError(`${what}: ${dt.invalidExplanation ?? dt.invalidReason ?? 'not a valid date-time'}.`);
  return dt;
}

function parse(text: string, zone: string, format: string | undefined, field: string): DateTime {
  const opts = { zone, setZone: false };
  if (format) return valid(DateTime.fromFormat(text, format, opts), `${field} '${text}' does not match the format '${format}'`);
  for (const reader of [DateTime.fromISO, DateTime.fromRFC2822, DateTime.fromHTTP, DateTime.fromSQL]) {
    const dt = reader(text, opts);
    if (dt.isValid) return dt.setZone(zone);
  }
  throw toolError(`${field} '${text}' is not a date-time this tool reads (ISO 8601 such as 2025-03-30T02:30:00, RFC 2822, HTTP or SQL; or give \`format\`).`);
}

function view(dt: DateTime) {
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

export function runDatetime(args: Args, now: () => DateTime = () => DateTime.utc()): unknown {
  const zone = zoneOf(args.zone, 'zone');
  const at = () => parse(args.datetime!, zone, args.op === 'parse' ? args.format : undefined, 'datetime');
  switch (args.op) {
    case 'now':
      return view(now().setZone(zone));
    case 'parse':
      return view(at());
    case 'format': {
      const dt = at().setLocale(args.locale ?? 'en-US');
      return { text: dt.toFormat(args.format!), ...view(dt) };
    }
    case 'add':
      return view(valid(at().plus(args.amount as DurationLikeObject), 'the result is out of range'));
    case 'diff': {
      const unit = args.unit ?? 'hours';
      const to = parse(args.to!, zone, undefined, 'to');
      const duration = to.diff(at(), unit);
      return { value: duration.as(unit), unit, iso_duration: to.diff(at(), ['days', 'hours', 'minutes', 'seconds']).toISO() };
    }
    case 'convert':
      return view(at().setZone(zoneOf(args.to_zone, 'to_zone')));
  }
}

export default defineTool<Args>(declaration, (args) => runDatetime(args));
