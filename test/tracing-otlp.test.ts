/**
 * The OTLP trace exporter against a real HTTP collector stand-in (node:http, bodies
 * captured) and real brokers; the cross-node test runs two brokers over the real NATS
 * transporter on 127.0.0.1:4222 in a namespace of its own.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { Errors, Loggers, ServiceBroker, type BrokerOptions, type Context } from 'moleculer';
import { encodeAttributes, toAnyValue, type OtlpAnyValue, type OtlpKeyValue } from '../kernel/tracing/otlp-attributes.ts';
import { OtlpTraceExporter } from '../kernel/tracing/otlp-exporter.ts';
import { toSpanId, toTraceId, toUnixNano, type OtlpSpan } from '../kernel/tracing/otlp-span.ts';
import { tracingOptions } from '../kernel/tracing/options.ts';
import { closedPort } from './helpers/kv-contract.ts';

const NATS_URL = 'nats://127.0.0.1:4222';

interface ExportRequest {
  resourceSpans: Array<{ resource: { attributes: OtlpKeyValue[] }; scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }>;
}
interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: ExportRequest;
}
interface Collector {
  endpoint: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** An HTTP server that records every request; `statuses` are answered in turn, then 200. */
async function startCollector(statuses: number[] = []): Promise<Collector> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const status = statuses.shift() ?? 200;
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(status === 200 ? '{}' : '{"message":"try later"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    endpoint: `http://127.0.0.1:${address.port}/`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function natsReachable(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(4222, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('error', (error) => reject(new Error(`NATS is not reachable at ${NATS_URL}: ${error.message}`)));
  });
}

interface ReceivedSpan extends OtlpSpan {
  serviceName: string;
  instanceId: string;
  scopeName: string;
}

function attribute(attributes: OtlpKeyValue[], key: string): OtlpAnyValue | undefined {
  return attributes.find((entry) => entry.key === key)?.value;
}

function receivedSpans(collector: Collector): ReceivedSpan[] {
  return collector.requests.flatMap(({ body }) =>
    body.resourceSpans.flatMap(({ resource, scopeSpans }) =>
      scopeSpans.flatMap(({ scope, spans }) =>
        spans.map((span) => ({
          ...span,
          serviceName: (attribute(resource.attributes, 'service.name') as { stringValue: string }).stringValue,
          instanceId: (attribute(resource.attributes, 'service.instance.id') as { stringValue: string }).stringValue,
          scopeName: scope.name,
        })),
      ),
    ),
  );
}

function spanNamed(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const matching = spans.filter((span) => span.name === name);
  if (matching.length !== 1) throw new Error(`expected one span '${name}', got ${matching.length} among ${spans.map((s) => s.name).join(', ')}`);
  return matching[0]!;
}

/** A moleculer log appender that keeps every entry, to see what the exporter warned about. */
class CapturingLogger extends Loggers.Base<{ level?: 'info' }> {
  readonly entries: Array<{ level: string; text: string }> = [];
  getLogHandler(): (level: string, args: unknown[]) => void {
    return (level, args) => this.entries.push({ level, text: args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' ') });
  }
}

test('spans from two nodes reach the collector as one OTLP trace', async (t) => {
  await natsReachable();
  const collector = await startCollector();
  t.teardown(() => collector.close());
  const run = randomUUID();
  const common: BrokerOptions = { logger: false, transporter: { type: 'NATS', options: { url: NATS_URL } }, namespace: `tracing-otlp-${run}` };
  const front = new ServiceBroker({
    ...common,
    nodeID: `front-${run}`,
    tracing: tracingOptions({ OTEL_ENABLED: true, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_SERVICE_NAME: 'svc-front' }),
  });
  const backExporter = new OtlpTraceExporter({ endpoint: collector.endpoint, serviceName: 'svc-back', interval: 60_000, headers: { 'X-Collector-Token': 'secret' } });
  const back = new ServiceBroker({ ...common, nodeID: `back-${run}`, tracing: { enabled: true, events: true, exporter: [backExporter as never] } });
  let stopped = false;
  const stopBoth = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all([front.stop(), back.stop()]);
  };
  t.teardown(stopBoth);

  let eventSeen!: () => void;
  const eventHandled = new Promise<void>((resolve) => (eventSeen = resolve));
  front.createService({
    name: 'front',
    actions: {
      run: async (ctx: Context<{ qty: number }>) => {
        const result = await ctx.call('back.work', { qty: ctx.params.qty, note: 'hello', ratio: 0.5, options: { deep: { flag: true } } });
        await ctx.emit('front.done', { qty: ctx.params.qty });
        return result;
      },
      fail: (ctx: Context) => ctx.call('back.explode'),
    },
  });
  back.createService({
    name: 'back',
    actions: {
      work: (ctx: Context<{ qty: number }>) => ({ doubled: ctx.params.qty * 2 }),
      explode: () => {
        throw new Errors.MoleculerError('boom', 500, 'BOOM');
      },
    },
    events: { 'front.done': () => eventSeen() },
  });
  await Promise.all([front.start(), back.start()]);
  await front.waitForServices('back', 20_000);

  t.deepEqual(await front.call('front.run', { qty: 21, password: 'hunter22', options: { deep: { api_key: 'sk-live-123', flag: true } } }), { doubled: 42 });
  await t.throwsAsync(front.call('front.fail'), { message: 'boom' });
  await eventHandled;
  const before = BigInt(Date.now() - 60_000) * 1_000_000n;
  await stopBoth();
  const after = BigInt(Date.now() + 60_000) * 1_000_000n;

  t.true(collector.requests.length >= 2, 'each node sent its spans when it stopped');
  for (const request of collector.requests) {
    t.is(request.method, 'POST');
    t.is(request.path, '/v1/traces');
    t.is(request.headers['content-type'], 'application/json');
  }
  t.true(collector.requests.some((request) => request.headers['x-collector-token'] === 'secret'));

  const spans = receivedSpans(collector);
  const run_ = spanNamed(spans, "action 'front.run'");
  const work = spanNamed(spans, "action 'back.work'");
  const done = spanNamed(spans, "event 'front.done' in 'back'");
  const fail = spanNamed(spans, "action 'front.fail'");
  const explode = spanNamed(spans, "action 'back.explode'");

  t.is(run_.serviceName, 'svc-front');
  t.is(run_.instanceId, `front-${run}`);
  t.is(work.serviceName, 'svc-back');
  t.is(work.instanceId, `back-${run}`);
  t.is(work.scopeName, 'moleculer');

  t.is(work.traceId, run_.traceId);
  t.is(work.parentSpanId, run_.spanId);
  t.is(done.traceId, run_.traceId);
  t.is(done.parentSpanId, run_.spanId);
  t.is(run_.parentSpanId, undefined, 'the first action is the root of its trace');
  t.not(fail.traceId, run_.traceId);
  t.is(explode.parentSpanId, fail.spanId);

  for (const span of spans) {
    t.regex(span.traceId, /^[0-9a-f]{32}$/);
    t.regex(span.spanId, /^[0-9a-f]{16}$/);
    if (span.parentSpanId !== undefined) t.regex(span.parentSpanId, /^[0-9a-f]{16}$/);
    t.is(typeof span.startTimeUnixNano, 'string');
    t.regex(span.startTimeUnixNano, /^\d+$/);
    t.regex(span.endTimeUnixNano, /^\d+$/);
    const start = BigInt(span.startTimeUnixNano);
    t.true(start > before && start < after, `${span.name} starts at ${span.startTimeUnixNano}, not an epoch in nanoseconds`);
    t.true(BigInt(span.endTimeUnixNano) >= start);
  }

  t.is(run_.kind, 2);
  t.is(work.kind, 2);
  t.is(done.kind, 1, 'an event span is internal');
  t.deepEqual(attribute(work.attributes, 'action.name'), { stringValue: 'back.work' });
  t.deepEqual(attribute(work.attributes, 'remoteCall'), { boolValue: true });
  t.deepEqual(attribute(work.attributes, 'callingLevel'), { intValue: '2' });
  t.deepEqual(attribute(work.attributes, 'params.qty'), { intValue: '21' });
  t.deepEqual(attribute(work.attributes, 'params.note'), { stringValue: 'hello' });
  t.deepEqual(attribute(work.attributes, 'params.ratio'), { doubleValue: 0.5 });
  t.deepEqual(attribute(work.attributes, 'params.options.deep.flag'), { boolValue: true });
  // with tracingOptions (the front node) secrets never leave in a span, at any depth
  t.deepEqual(attribute(run_.attributes, 'params.qty'), { intValue: '21' });
  t.deepEqual(attribute(run_.attributes, 'params.password'), { stringValue: '[redacted]' });
  t.deepEqual(attribute(run_.attributes, 'params.options.deep.api_key'), { stringValue: '[redacted]' });
  t.deepEqual(attribute(run_.attributes, 'params.options.deep.flag'), { boolValue: true });
  t.false(/hunter22|sk-live-123/.test(JSON.stringify(spans)));
  t.is(run_.status, undefined);
  t.is(work.status, undefined);

  t.deepEqual(explode.status, { code: 2, message: 'boom' });
  t.deepEqual(fail.status, { code: 2, message: 'boom' });
  t.deepEqual(attribute(explode.attributes, 'error.type'), { stringValue: 'BOOM' });
  const exception = explode.events?.find((event) => event.name === 'exception');
  t.deepEqual(attribute(exception?.attributes ?? [], 'exception.message'), { stringValue: 'boom' });
});

test('a collector that is down neither fails calls nor hangs the broker on stop', async (t) => {
  const logger = new CapturingLogger();
  const exporter = new OtlpTraceExporter({ endpoint: `http://127.0.0.1:${await closedPort()}`, serviceName: 'svc-down', interval: 50, maxBatch: 2 });
  const broker = new ServiceBroker({ nodeID: `down-${randomUUID()}`, logger: logger as never, tracing: { enabled: true, exporter: [exporter as never] } });
  broker.createService({ name: 'echo', actions: { say: (ctx: Context<{ n: number }>) => ctx.params.n } });
  await broker.start();
  try {
    for (let n = 0; n < 10; n += 1) t.is(await broker.call('echo.say', { n }), n);
  } finally {
    await broker.stop();
  }
  const warnings = logger.entries.filter((entry) => entry.level === 'warn' && entry.text.includes('OtlpTraceExporter'));
  t.true(warnings.length >= 1, 'the failed export is reported');
  t.regex(warnings[0]!.text, /spans dropped: export to http:\/\/127\.0\.0\.1:\d+\/v1\/traces failed after 2 attempt/);
});

test('a batch answered 503 is sent again; one answered 400 is not', async (t) => {
  const flaky = await startCollector([503]);
  const refusing = await startCollector([400]);
  t.teardown(() => Promise.all([flaky.close(), refusing.close()]).then(() => undefined));
  const broker = new ServiceBroker({
    nodeID: `retry-${randomUUID()}`,
    logger: false,
    tracing: {
      enabled: true,
      exporter: [
        new OtlpTraceExporter({ endpoint: flaky.endpoint, serviceName: 'svc-retry', interval: 60_000 }) as never,
        new OtlpTraceExporter({ endpoint: refusing.endpoint, serviceName: 'svc-retry', interval: 60_000 }) as never,
      ],
    },
  });
  broker.createService({ name: 'echo', actions: { say: () => 'hi' } });
  await broker.start();
  await broker.call('echo.say');
  await broker.stop();

  t.is(flaky.requests.length, 2);
  t.deepEqual(flaky.requests[1]!.body, flaky.requests[0]!.body);
  t.is(receivedSpans(flaky)[0]!.name, "action 'echo.say'");
  t.is(refusing.requests.length, 1);
});

test('tracingOptions is off unless OTEL_ENABLED', (t) => {
  t.deepEqual(tracingOptions({ OTEL_ENABLED: false, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SERVICE_NAME: 'wao' }), { enabled: false });
});

test('tracingOptions enabled gives moleculer tracing with one OTLP exporter', (t) => {
  const options = tracingOptions({ OTEL_ENABLED: true, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_SERVICE_NAME: 'wao' });
  if (typeof options !== 'object' || options === null) return t.fail('expected an options object');
  t.true(options.enabled);
  t.true(options.events, 'event handlers are traced too');
  const exporters = options.exporter as unknown[];
  t.is(exporters.length, 1);
  const exporter = exporters[0];
  if (!(exporter instanceof OtlpTraceExporter)) return t.fail('expected an OtlpTraceExporter');
  t.is(exporter.url, 'http://collector:4318/v1/traces');
  t.is(exporter.options.serviceName, 'wao');
  t.is(exporter.options.interval, 5000);
});

test('the exporter refuses a bad endpoint or limits', (t) => {
  t.throws(() => new OtlpTraceExporter({ endpoint: 'not a url', serviceName: 's' }), { message: /not a URL/ });
  t.throws(() => new OtlpTraceExporter({ endpoint: 'ftp://x', serviceName: 's' }), { message: /http or https/ });
  t.throws(() => new OtlpTraceExporter({ endpoint: 'http://x', serviceName: '' }), { message: /serviceName/ });
  t.throws(() => new OtlpTraceExporter({ endpoint: 'http://x', serviceName: 's', maxBatch: 0 }), { message: /maxBatch/ });
  t.throws(() => new OtlpTraceExporter({ endpoint: 'http://x', serviceName: 's', interval: -1 }), { message: /interval/ });
});

test('ids: a UUID keeps its digits as trace id; span ids are stable 16-hex hashes', (t) => {
  t.is(toTraceId('3F2504E0-4F89-11D3-9A0C-0305E82C3301'), '3f2504e04f8911d39a0c0305e82c3301');
  t.regex(toTraceId('node-1-42'), /^[0-9a-f]{32}$/);
  t.is(toSpanId('3f2504e0-4f89-11d3-9a0c-0305e82c3301'), toSpanId('3f2504e0-4f89-11d3-9a0c-0305e82c3301'));
  t.not(toSpanId('a'), toSpanId('b'));
  t.regex(toSpanId('a'), /^[0-9a-f]{16}$/);
});

test('timestamps: fractional epoch milliseconds become integer nanoseconds', (t) => {
  t.is(toUnixNano(1_700_000_000_000), '1700000000000000000');
  t.is(toUnixNano(1_700_000_000_000.25), '1700000000000250000');
  t.is(toUnixNano(1_700_000_000_000.125), '1700000000000125000');
});

test('attribute values are typed, capped, and null/undefined are left out', (t) => {
  t.deepEqual(toAnyValue('x'), { stringValue: 'x' });
  t.deepEqual(toAnyValue(7), { intValue: '7' });
  t.deepEqual(toAnyValue(1.5), { doubleValue: 1.5 });
  t.deepEqual(toAnyValue(Number.NaN), { stringValue: 'NaN' });
  t.deepEqual(toAnyValue(2n ** 70n), { stringValue: (2n ** 70n).toString() });
  t.deepEqual(toAnyValue(false), { boolValue: false });
  t.deepEqual(toAnyValue([1, 'a']), { stringValue: '[1,"a"]' });
  t.deepEqual(toAnyValue('abcdef', 4), { stringValue: 'abc…' });
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  t.deepEqual(toAnyValue(circular), { stringValue: '[object Object]' });

  const encoded = encodeAttributes({ a: undefined, b: null, c: { d: 1, e: { f: 'g' } }, list: [1], when: new Date(0) });
  t.deepEqual(encoded.attributes, [
    { key: 'c.d', value: { intValue: '1' } },
    { key: 'c.e.f', value: { stringValue: 'g' } },
    { key: 'list', value: { stringValue: '[1]' } },
    { key: 'when', value: { stringValue: '"1970-01-01T00:00:00.000Z"' } },
  ]);
  const many = encodeAttributes({ a: 1, b: 2, c: 3 }, { maxCount: 2, maxValueLength: 10, maxDepth: 3 });
  t.is(many.attributes.length, 2);
  t.is(many.droppedAttributesCount, 1);
});
