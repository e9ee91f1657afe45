import type { BrokerOptions } from 'moleculer';
import { OtlpTraceExporter } from './otlp-exporter.ts';
import { redactSecretKeys } from '../secrets/redact.ts';

export interface TracingEnv {
  OTEL_ENABLED: boolean;
  OTEL_EXPORTER_OTLP_ENDPOINT: string;
  OTEL_SERVICE_NAME: string;
}

/**
 * The broker's `tracing` option: off unless `OTEL_ENABLED`, else moleculer's tracer with one
 * OTLP exporter. Call it once per broker: an exporter instance belongs to one tracer.
 */
export function tracingOptions(env: TracingEnv): BrokerOptions['tracing'] {
  if (!env.OTEL_ENABLED) return { enabled: false };
  const exporter = new OtlpTraceExporter({ endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME });
  return {
    enabled: true,
    // moleculer traces actions by default, events only when asked
    events: true,
    // spans carry the params (moleculer's default) with secrets left out: a password, an API key
    tags: { action: paramsTags, event: paramsTags },
    // moleculer accepts an exporter instance at runtime; its typings list only the built-in ones
    exporter: [exporter as never],
  };
}

function paramsTags(ctx: { params: unknown }): Record<string, unknown> {
  return { params: redactSecretKeys(ctx.params) };
}
