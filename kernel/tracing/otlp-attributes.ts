import { isPlainObject } from '../plain-object.ts';

/**
 * OTLP/JSON attribute encoding (opentelemetry-proto `common.proto` in its JSON mapping):
 * every value is a typed `AnyValue`, and 64-bit integers travel as decimal strings.
 */

export type OtlpAnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean };

export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

export interface AttributeLimits {
  /** longest string value kept; longer ones are cut */
  maxValueLength: number;
  /** most attributes kept on one span; the rest are counted as dropped */
  maxCount: number;
  /** nesting depth flattened into dotted keys; deeper values are stringified */
  maxDepth: number;
}

// The OpenTelemetry SDKs default to 128 attributes per span.
export const DEFAULT_ATTRIBUTE_LIMITS: AttributeLimits = { maxValueLength: 4096, maxCount: 128, maxDepth: 6 };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // circular structures and BigInt inside objects cannot be JSON-encoded
    return Object.prototype.toString.call(value);
  }
}

/** One scalar as an OTLP value; objects and arrays become their JSON text. */
export function toAnyValue(value: unknown, maxValueLength: number = DEFAULT_ATTRIBUTE_LIMITS.maxValueLength): OtlpAnyValue {
  switch (typeof value) {
    case 'string':
      return { stringValue: truncate(value, maxValueLength) };
    case 'boolean':
      return { boolValue: value };
    case 'number':
      if (Number.isSafeInteger(value)) return { intValue: String(value) };
      // the JSON mapping of a double cannot carry NaN or ±Infinity as a number
      return Number.isFinite(value) ? { doubleValue: value } : { stringValue: String(value) };
    case 'bigint':
      return value >= INT64_MIN && value <= INT64_MAX ? { intValue: value.toString() } : { stringValue: value.toString() };
    default:
      return { stringValue: truncate(stringify(value), maxValueLength) };
  }
}

function flattenInto(out: Array<[string, unknown]>, value: unknown, path: string, depth: number, maxDepth: number): void {
  // like the OpenTelemetry SDKs, a null or undefined value is no attribute at all
  if (value === undefined || value === null) return;
  if (isPlainObject(value) && depth < maxDepth) {
    for (const [key, child] of Object.entries(value)) {
      flattenInto(out, child, path ? `${path}.${key}` : key, depth + 1, maxDepth);
    }
    return;
  }
  if (path) out.push([path, value]);
}

export interface EncodedAttributes {
  attributes: OtlpKeyValue[];
  droppedAttributesCount: number;
}

/**
 * Flattens nested tags into dotted keys (`{ action: { name } }` → `action.name`) and encodes
 * them, keeping at most `limits.maxCount`; the first occurrence of a key wins.
 */
export function encodeAttributes(tags: Record<string, unknown>, limits: AttributeLimits = DEFAULT_ATTRIBUTE_LIMITS): EncodedAttributes {
  const flat: Array<[string, unknown]> = [];
  flattenInto(flat, tags, '', 0, limits.maxDepth);
  const seen = new Set<string>();
  const attributes: OtlpKeyValue[] = [];
  let droppedAttributesCount = 0;
  for (const [key, value] of flat) {
    if (seen.has(key)) continue;
    seen.add(key);
    if (attributes.length >= limits.maxCount) {
      droppedAttributesCount += 1;
      continue;
    }
    attributes.push({ key, value: toAnyValue(value, limits.maxValueLength) });
  }
  return { attributes, droppedAttributesCount };
}
