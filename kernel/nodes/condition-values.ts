import { DateTime, IANAZone } from 'luxon';
import { NodeStepError } from './step-error.ts';

/**
 * How an item condition reads its two sides before comparing them: as date-times (`type:
 * datetime`: both parsed, compared as instants) or as text without case (`ignore_case`).
 */

/**
 * A date-time value as an instant in milliseconds: a Date, epoch milliseconds, or text in ISO
 * 8601, HTTP, RFC 2822 or SQL form (tried in that order; `zone` for text without an offset),
 * then anything `Date.parse` reads. Null and undefined are no date-time (undefined); anything
 * else that does not parse fails the step.
 */
export function instantOf(value: unknown, zone: string, where: string): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const text = String(typeof value === 'object' ? JSON.stringify(value) : value).trim();
  const options = { zone, setZone: true };
  for (const parse of [DateTime.fromISO, DateTime.fromHTTP, DateTime.fromRFC2822, DateTime.fromSQL]) {
    const parsed = parse(text, options);
    if (parsed.isValid) return parsed.toMillis();
  }
  const loose = Date.parse(text);
  if (!Number.isNaN(loose)) return loose;
  throw new NodeStepError(`${where}: '${text.slice(0, 100)}' is not a date-time (ISO 8601, HTTP, RFC 2822 or SQL form).`, 'BAD_INPUT');
}

/** A time zone for date-times without an offset; an unknown name fails the step naming the key. */
export function zoneOf(zone: unknown, where: string): string {
  if (zone === undefined) return 'UTC';
  if (typeof zone === 'string' && IANAZone.isValidZone(zone)) return zone;
  throw new NodeStepError(`${where} '${String(zone)}' is not an IANA time zone.`, 'BAD_CONFIG');
}

/** Text in lower case for a comparison ignoring case; lists element by element (contains); anything else as it is. */
export function folded(value: unknown): unknown {
  if (typeof value === 'string') return value.toLocaleLowerCase();
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v.toLocaleLowerCase() : v));
  return value;
}

/** Two instants compared; when either side is no date-time the condition is not met (ne included). */
export function compareInstants(left: number | undefined, operator: string, right: number | undefined): boolean {
  if (left === undefined || right === undefined) return false;
  switch (operator) {
    case 'eq': return left === right;
    case 'ne': return left !== right;
    case 'gt': return left > right;
    case 'gte': return left >= right;
    case 'lt': return left < right;
    case 'lte': return left <= right;
    default: throw new NodeStepError(`operator '${operator}' does not compare date-times (eq, ne, gt, gte, lt, lte, exists, empty).`, 'BAD_CONFIG');
  }
}
