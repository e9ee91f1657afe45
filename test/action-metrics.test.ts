import test from 'ava';
import { ServiceBroker } from 'moleculer';
import { brokerMiddlewares } from '../kernel/metrics/action-metrics.ts';

test('the lighter action metrics keep moleculer\'s event and request metrics, without the per-call gauges', async (t) => {
  const broker = new ServiceBroker({ logger: false, metrics: { enabled: true }, internalMiddlewares: false, middlewares: brokerMiddlewares() as never });
  broker.createService({ name: 'probe', actions: { ping: () => 'pong', fail: () => Promise.reject(Object.assign(new Error('no'), { code: 409, type: 'BUSY' })) }, events: { 'probe.seen'() {} } });
  await broker.start();
  t.teardown(() => broker.stop());
  t.is(await broker.call('probe.ping'), 'pong');
  await t.throwsAsync(broker.call('probe.fail'));
  await broker.emit('probe.seen', {});
  const values = (name: string) => (broker.metrics.getMetric(name) as unknown as { values: Map<string, { labels: Record<string, unknown>; value?: number; count?: number }> } | null)?.values;
  const total = [...values('moleculer.request.total')!.values()].find((v) => v.labels.action === 'probe.ping');
  t.is(total?.value, 1);
  t.is([...values('moleculer.request.time')!.values()].find((v) => v.labels.action === 'probe.ping')?.count, 1);
  t.is([...values('moleculer.request.error.total')!.values()].find((v) => v.labels.action === 'probe.fail')?.labels.errorType, 'BUSY');
  t.true(broker.metrics.hasMetric('moleculer.event.emit.total'), 'moleculer\'s event metrics are kept');
  t.true(broker.metrics.hasMetric('moleculer.transit.requests.active'), 'and its transit metrics');
  t.false(broker.metrics.hasMetric('moleculer.request.active'));
  t.false(broker.metrics.hasMetric('moleculer.request.levels'));
});
