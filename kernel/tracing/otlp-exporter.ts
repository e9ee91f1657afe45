/**
 * A moleculer trace exporter that sends finished spans to an OpenTelemetry collector
 * over OTLP/HTTP JSON (`POST {endpoint}/v1/traces`).
 *
 * Spans are encoded when they finish, queued, and sent in batches every `interval` ms or
 * as soon as `maxBatch` are waiting. Export is best effort: a failed batch is retried
 * once, then dropped with what is queued behind it and a (rate-limited) warning; the queue
 * is bounded, and nothing here throws into the broker. `stop()` (called by `broker.stop()`)
 * sends what is pending.
 */
import { hostname } from 'node:os';
import { TracerExporters, type Span, type Tracer } from 'moleculer';
import { encodeAttributes, type OtlpKeyValue } from './otlp-attributes.ts';
import { sendTraces } from './otlp-send.ts';
import { encodeSpan, type OtlpSpan } from './otlp-span.ts';

export interface OtlpTraceExporterOptions {
  /** collector base address, e.g. `http://127.0.0.1:4318`; spans go to `{endpoint}/v1/traces` */
  endpoint: string;
  /** the `service.name` resource attribute */
  serviceName: string;
  /** flush period in ms (default 5000) */
  interval?: number;
  /** most spans in one request; a full batch is sent at once (default 512) */
  maxBatch?: number;
  /** extra request headers, e.g. an authorization token for a hosted collector */
  headers?: Record<string, string>;
  /** per-request timeout in ms (default 10000) */
  timeout?: number;
  /** most spans waiting to be sent; beyond it new spans are dropped (default 8 × maxBatch) */
  maxQueue?: number;
}

type ResolvedOptions = Required<OtlpTraceExporterOptions>;

const SEND_ATTEMPTS = 2;
const RETRY_DELAY_MS = 1000;
const WARN_EVERY_MS = 60_000;

function resolveOptions(options: OtlpTraceExporterOptions): ResolvedOptions {
  let url: URL;
  try {
    url = new URL(options.endpoint);
  } catch {
    throw new Error(`OtlpTraceExporter: endpoint '${options.endpoint}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`OtlpTraceExporter: endpoint '${options.endpoint}' must be http or https`);
  }
  if (!options.serviceName) throw new Error('OtlpTraceExporter: serviceName must not be empty');
  const resolved: ResolvedOptions = {
    endpoint: options.endpoint.replace(/\/+$/, ''),
    serviceName: options.serviceName,
    interval: options.interval ?? 5000,
    maxBatch: options.maxBatch ?? 512,
    headers: options.headers ?? {},
    timeout: options.timeout ?? 10_000,
    maxQueue: options.maxQueue ?? (options.maxBatch ?? 512) * 8,
  };
  for (const key of ['interval', 'timeout'] as const) {
    if (!(resolved[key] > 0 && Number.isFinite(resolved[key]))) throw new Error(`OtlpTraceExporter: ${key} must be a positive number of ms`);
  }
  for (const key of ['maxBatch', 'maxQueue'] as const) {
    if (!(Number.isSafeInteger(resolved[key]) && resolved[key] > 0)) throw new Error(`OtlpTraceExporter: ${key} must be a positive integer`);
  }
  return resolved;
}

export class OtlpTraceExporter extends TracerExporters.Base {
  readonly options: ResolvedOptions;
  readonly url: string;
  private queue: OtlpSpan[] = [];
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private resourceAttributes: OtlpKeyValue[] = [];
  private scope: { name: string; version: string } = { name: 'moleculer', version: '' };
  private lastWarnAt = Number.NEGATIVE_INFINITY;
  private suppressedWarnings = 0;

  constructor(options: OtlpTraceExporterOptions) {
    super({});
    this.options = resolveOptions(options);
    this.url = `${this.options.endpoint}/v1/traces`;
  }

  init(tracer: Tracer): void {
    super.init(tracer);
    const broker = this.broker;
    this.scope = { name: 'moleculer', version: broker.MOLECULER_VERSION };
    this.resourceAttributes = encodeAttributes({
      'service.name': this.options.serviceName,
      'service.instance.id': broker.nodeID,
      'service.namespace': broker.namespace || undefined,
      'host.name': hostname(),
      'process.pid': process.pid,
      'telemetry.sdk.name': 'moleculer',
      'telemetry.sdk.language': 'nodejs',
      'telemetry.sdk.version': broker.MOLECULER_VERSION,
    }).attributes;
    this.timer = setInterval(() => void this.flush(), this.options.interval);
    this.timer.unref();
  }

  spanFinished(span: Span): void {
    if (this.queue.length >= this.options.maxQueue) {
      this.warn(`OTLP trace queue is full (${this.options.maxQueue} spans): span '${span.name}' dropped`);
      return;
    }
    try {
      this.queue.push(encodeSpan(span, { errorFields: span.error ? this.errorToObject(span.error) : null }));
    } catch (error) {
      this.warn(`span '${span.name}' could not be encoded for OTLP and was dropped: ${(error as Error).message}`);
      return;
    }
    if (this.queue.length >= this.options.maxBatch) void this.flush();
  }

  /** Sends everything queued, one batch at a time; concurrent callers share the same run. */
  flush(): Promise<void> {
    if (this.draining) return this.draining;
    if (this.queue.length === 0) return Promise.resolve();
    this.draining = this.drain().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // a span may be queued while the last run is finishing: loop until the queue is empty
    do await this.flush();
    while (this.queue.length > 0);
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      let failure: string | null;
      try {
        failure = await this.sendBatch(batch);
      } catch (error) {
        failure = (error as Error).message;
      }
      if (failure !== null) {
        // the collector is unreachable: drop the backlog too, so a stopping broker waits
        // for one bounded retry, not one per queued batch
        const dropped = batch.length + this.queue.splice(0).length;
        this.warn(`${dropped} spans dropped: ${failure}`);
        return;
      }
    }
  }

  /** Sends one batch; resolves to why it was not delivered, or null. */
  private async sendBatch(spans: OtlpSpan[]): Promise<string | null> {
    const body = JSON.stringify({
      resourceSpans: [{ resource: { attributes: this.resourceAttributes }, scopeSpans: [{ scope: this.scope, spans }] }],
    });
    const result = await sendTraces({
      url: this.url,
      body,
      headers: this.options.headers,
      timeout: this.options.timeout,
      attempts: SEND_ATTEMPTS,
      retryDelay: RETRY_DELAY_MS,
    });
    if (!result.ok) return `export to ${this.url} failed after ${result.attempts} attempt(s): ${result.reason}`;
    if (result.rejectedSpans > 0) {
      this.warn(`collector at ${this.url} rejected ${result.rejectedSpans} of ${spans.length} spans: ${result.rejectionMessage ?? 'no reason given'}`);
    } else {
      this.logger.debug(`${spans.length} spans exported to ${this.url}`);
    }
    return null;
  }

  // A collector that is down would otherwise log once per batch.
  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) {
      this.suppressedWarnings += 1;
      return;
    }
    const suppressed = this.suppressedWarnings;
    this.lastWarnAt = now;
    this.suppressedWarnings = 0;
    this.logger.warn(`OtlpTraceExporter: ${message}${suppressed > 0 ? ` (${suppressed} similar warnings suppressed)` : ''}`);
  }
}
