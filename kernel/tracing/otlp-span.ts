/**
 * One finished moleculer span as an OTLP/JSON span (opentelemetry-proto `trace.proto`).
 *
 * Moleculer ids are strings (UUIDs by default) while OTLP wants 16-byte trace ids and
 * 8-byte span ids in hex. Every node derives them from the moleculer ids the same way,
 * so a child span created on another node points at its parent without any coordination.
 */
import { createHash } from 'node:crypto';
import type { Span } from 'moleculer';
import { DEFAULT_ATTRIBUTE_LIMITS, encodeAttributes, type AttributeLimits, type OtlpKeyValue } from './otlp-attributes.ts';

export const SPAN_KIND_INTERNAL = 1;
export const SPAN_KIND_SERVER = 2;
export const STATUS_CODE_ERROR = 2;

export interface OtlpEvent {
  timeUnixNano: string;
  name: string;
  attributes: OtlpKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  droppedAttributesCount?: number;
  events?: OtlpEvent[];
  status?: { code: number; message?: string };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** 32 lowercase hex chars: the UUID's own digits when the id is a UUID, else a hash of it. */
export function toTraceId(moleculerId: string): string {
  const digits = moleculerId.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(digits) ? digits : sha256Hex(moleculerId).slice(0, 32);
}

/** 16 lowercase hex chars hashed from the moleculer span id (a UUID has 32, too many to keep). */
export function toSpanId(moleculerId: string): string {
  return sha256Hex(moleculerId).slice(0, 16);
}

/** Epoch milliseconds (fractional, as moleculer measures them) to integer nanoseconds as a decimal string. */
export function toUnixNano(epochMs: number): string {
  const wholeMs = Math.floor(epochMs);
  const nanosInMs = Math.min(999_999, Math.round((epochMs - wholeMs) * 1e6));
  return (BigInt(wholeMs) * 1_000_000n + BigInt(nanosInMs)).toString();
}

function errorMessage(error: unknown): string {
  if (error !== null && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return 'Unknown error';
}

function errorName(error: unknown): string {
  if (error !== null && typeof error === 'object' && typeof (error as { name?: unknown }).name === 'string') {
    return (error as { name: string }).name;
  }
  return 'Error';
}

function makeEvent(epochMs: number, name: string, fields: Record<string, unknown>, limits: AttributeLimits): OtlpEvent {
  const { attributes, droppedAttributesCount } = encodeAttributes(fields, limits);
  const event: OtlpEvent = { timeUnixNano: toUnixNano(epochMs), name, attributes };
  if (droppedAttributesCount > 0) event.droppedAttributesCount = droppedAttributesCount;
  return event;
}

export interface EncodeSpanOptions {
  /** the error as moleculer's tracer reduces it (`errorFields`), recorded under `error.*` */
  errorFields?: Record<string, unknown> | null;
  limits?: AttributeLimits;
}

export function encodeSpan(span: Span, options: EncodeSpanOptions = {}): OtlpSpan {
  const limits = options.limits ?? DEFAULT_ATTRIBUTE_LIMITS;
  const startMs = span.startTime ?? Date.now();
  const endMs = span.finishTime ?? startMs;
  const { attributes, droppedAttributesCount } = encodeAttributes(
    {
      'moleculer.span.type': span.type,
      'moleculer.service': span.service?.fullName ?? span.service?.name,
      'moleculer.span.id': span.id,
      ...span.tags,
      ...(span.error && options.errorFields ? { error: options.errorFields } : {}),
    },
    limits,
  );

  const otlp: OtlpSpan = {
    traceId: toTraceId(span.traceID),
    spanId: toSpanId(span.id),
    name: span.name,
    kind: span.type === 'action' ? SPAN_KIND_SERVER : SPAN_KIND_INTERNAL,
    startTimeUnixNano: toUnixNano(startMs),
    endTimeUnixNano: toUnixNano(endMs),
    attributes,
  };
  if (span.parentID) otlp.parentSpanId = toSpanId(span.parentID);
  if (droppedAttributesCount > 0) otlp.droppedAttributesCount = droppedAttributesCount;

  const events = span.logs.map((entry) => makeEvent(entry.time, entry.name, entry.fields ?? {}, limits));
  if (span.error) {
    const message = errorMessage(span.error);
    otlp.status = { code: STATUS_CODE_ERROR, message };
    // the OpenTelemetry semantic convention for a recorded exception
    events.push(makeEvent(endMs, 'exception', { 'exception.type': errorName(span.error), 'exception.message': message }, limits));
  }
  if (events.length > 0) otlp.events = events;
  return otlp;
}
