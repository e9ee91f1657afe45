import { list, own, record, str } from '../graph.ts';
import { ownList, type NodeCtx, type NodeMapping } from './context.ts';
import { momentToLuxon } from './moment-format.ts';
import { itemsValue } from './translate.ts';

/**
 * Date & Time: each item's result goes into its output field (`datetime` with `each`).
 * Version 2 (Luxon): every operation; the input item's other fields only with the option
 * includeInputFields, as n8n does. Version 1 (moment.js): format and calculate, its moment
 * tokens rewritten as Luxon's (moment-format.ts), the item kept.
 */
const UNITS: Record<string, string> = { years: 'years', quarters: 'quarters', months: 'months', weeks: 'weeks', days: 'days', hours: 'hours', minutes: 'minutes', seconds: 'seconds', milliseconds: 'milliseconds' };
const SINGULAR: Record<string, string> = { year: 'years', quarter: 'quarters', month: 'months', week: 'weeks', day: 'days', hour: 'hours', minute: 'minutes', second: 'seconds', millisecond: 'milliseconds' };
const ROUND_TO = new Set(['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second']);
const PARTS = new Set(['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second']);
const mapping = (): NodeMapping => ({ type: 'datetime', config: {}, items: () => undefined, approx: [], problems: [] });
const amountOf = (raw: unknown) => (typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : undefined);

export function dateTime(ctx: NodeCtx): NodeMapping {
  const m = ctx.version < 2 ? version1(ctx) : version2(ctx);
  m.items = ownList(ctx.id);
  return m;
}

function version2(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const tr = ctx.translator('item');
  const m = mapping();
  const options = record(p.options);
  const operation = str(p.operation) ?? 'getCurrentDate';
  const fromFormat = str(options.fromFormat);
  const common = { each: itemsValue(ctx.input), zone: ctx.zone, item: options.includeInputFields === true ? '{{item}}' : {} };
  const output = (fallback: string) => str(p.outputFieldName) ?? fallback;
  if (operation === 'formatDate') {
    // n8n formats in UTC unless "Use Workflow Timezone" (options.timezone) is on
    const zone = options.timezone === true ? ctx.zone : 'UTC';
    const format = p.format === 'custom' ? tr.value(p.customFormat ?? '') : str(p.format) ?? 'MM/dd/yyyy';
    if (typeof format !== 'string' || !format) m.problems.push('a Custom Format that is empty');
    m.config = { ...common, zone, op: 'format', datetime: tr.value(p.date ?? ''), format, ...(fromFormat ? { from_format: fromFormat } : {}), output_field: output('formattedDate') };
    m.approx.push(`a date with its own offset is written in ${zone} (n8n keeps the offset it came with unless it uses the workflow's zone)`);
  } else if (operation === 'addToDate' || operation === 'subtractFromDate') {
    const unit = own(UNITS, p.timeUnit ?? 'days');
    const amount = amountOf(p.duration ?? 0);
    if (!unit) m.problems.push(`the unit '${String(p.timeUnit)}' has no equivalent`);
    if (amount === undefined) m.problems.push(`the duration '${String(p.duration)}' is not a number`);
    const signed = operation === 'addToDate' ? amount ?? 0 : -(amount ?? 0);
    m.config = { ...common, op: 'add', datetime: tr.value(p.magnitude ?? ''), amount: { [unit ?? 'days']: signed }, output_field: output('newDate') };
  } else if (operation === 'roundDate') {
    const up = p.mode === 'roundUp';
    const unit = str(up ? p.to ?? 'month' : p.toNearest ?? 'month');
    if (!unit || !ROUND_TO.has(unit)) m.problems.push(`rounding to '${String(unit)}' has no equivalent`);
    m.config = { ...common, op: 'round', datetime: tr.value(p.date ?? ''), round_to: unit, direction: up ? 'up' : 'down', output_field: output('roundedDate') };
    if (up) m.approx.push("rounding up gives the start of the next month, as n8n's 'end of month' does");
  } else if (operation === 'getTimeBetweenDates') {
    const raw = p.units === undefined ? ['day'] : list(p.units);
    const units = raw.map((u) => own(SINGULAR, u));
    if (units.length === 0 || units.some((u) => u === undefined)) m.problems.push(`the units ${JSON.stringify(p.units)} have no equivalent`);
    const ordered = Object.values(SINGULAR).filter((u) => units.includes(u));
    m.config = { ...common, op: 'diff', datetime: tr.value(p.startDate ?? ''), to: tr.value(p.endDate ?? ''), units: ordered, output_field: output('timeDifference'), ...(options.isoString === true ? { output_key: 'iso_duration' } : {}) };
  } else if (operation === 'extractDate') {
    const part = str(p.part ?? 'month');
    if (!part || !PARTS.has(part)) m.problems.push(`the part '${String(p.part)}' has no equivalent`);
    m.config = { ...common, op: 'extract', datetime: tr.value(p.date ?? ''), part, output_field: output('datePart') };
  } else if (operation === 'getCurrentDate') {
    m.config = { ...common, zone: str(options.timezone) ?? ctx.zone, op: 'now', output_field: output('currentDate') };
    if (p.includeTime === false) m.approx.push('the current date includes the time');
  } else m.problems.push(`Date & Time '${operation}' is not an operation of n8n's version 2 node`);
  if (fromFormat && operation !== 'formatDate') m.approx.push('From Date Format applies to Format a Date only (as in n8n)');
  m.approx.push(`dates without an offset are read in ${ctx.zone} (the workflow's settings.timezone; n8n reads them in its server's zone); numeric timestamps are not read`);
  m.problems.push(...tr.problems);
  return m;
}

/** A version 1 moment.js format as Luxon tokens, or a problem. */
function luxonFormat(raw: unknown, what: string, m: NodeMapping): string | undefined {
  if (typeof raw !== 'string' || !raw) return undefined;
  const read = momentToLuxon(raw);
  if (read.ok) return read.luxon;
  m.problems.push(`the ${what} '${raw}' uses the moment.js token '${read.token}', which has no Luxon equivalent`);
  return undefined;
}

function version1(ctx: NodeCtx): NodeMapping {
  const { p } = ctx;
  const tr = ctx.translator('item');
  const m = mapping();
  const options = record(p.options);
  const field = str(p.dataPropertyName) ?? 'data';
  const fromFormat = luxonFormat(options.fromFormat, 'From Format', m);
  const common = { each: itemsValue(ctx.input), item: '{{item}}', datetime: tr.value(p.value ?? ''), ...(fromFormat ? { from_format: fromFormat } : {}), output_field: field };
  const action = str(p.action) ?? 'format';
  if (action === 'format') {
    const fromZone = str(options.fromTimezone);
    const toZone = str(options.toTimezone);
    const format = luxonFormat(p.toFormat ?? 'MM/DD/YYYY', 'To Format', m);
    const zones = fromZone || toZone ? { zone: fromZone ?? ctx.zone, to_zone: toZone ?? ctx.zone } : { zone: ctx.zone };
    m.config = { ...common, ...zones, op: 'format', format };
  } else if (action === 'calculate') {
    const unit = own(UNITS, p.timeUnit ?? 'days');
    const amount = amountOf(p.duration ?? 0);
    if (!unit) m.problems.push(`the unit '${String(p.timeUnit)}' has no equivalent`);
    if (amount === undefined) m.problems.push(`the duration '${String(p.duration)}' is not a number`);
    const signed = p.operation === 'subtract' ? -(amount ?? 0) : amount ?? 0;
    // moment's toISOString: always UTC
    m.config = { ...common, zone: ctx.zone, to_zone: 'UTC', op: 'add', amount: { [unit ?? 'days']: signed } };
  } else m.problems.push(`Date & Time version 1 '${action}' is not an action of n8n's node`);
  if (field.includes('.')) m.approx.push(`the result goes into one key named '${field}' (n8n version 1 nests it at that path)`);
  m.approx.push(`dates without an offset are read in ${ctx.zone} (the workflow's settings.timezone; n8n version 1 reads them in its server's zone); numeric timestamps are not read`);
  m.problems.push(...tr.problems);
  return m;
}
