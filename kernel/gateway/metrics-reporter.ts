import { MetricReporters } from 'moleculer';

type Base = InstanceType<typeof MetricReporters.Base>;
type Prometheus = InstanceType<typeof MetricReporters.Prometheus> & { generatePrometheusResponse(): string };

/**
 * Moleculer's Prometheus reporter, minus its own HTTP server: the gateway serves its text
 * at /metrics on the API port instead of opening another port.
 */
export class GatewayPrometheusReporter extends (MetricReporters.Prometheus as unknown as new (opts?: object) => Prometheus) {
  override init(registry: Parameters<Base['init']>[0]): void {
    (MetricReporters.Base.prototype as Base).init.call(this, registry);
    const labels = (this as unknown as { opts: { defaultLabels: unknown } }).opts.defaultLabels;
    (this as unknown as { defaultLabels: unknown }).defaultLabels = typeof labels === 'function' ? labels.call(this, registry) : labels;
  }

  override stop(): Promise<void> {
    return Promise.resolve();
  }

  text(): string {
    return this.generatePrometheusResponse();
  }
}
