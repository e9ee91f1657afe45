import { METRIC, MetricReporters } from 'moleculer';

type Base = InstanceType<typeof MetricReporters.Base>;
type HistogramItem = { labels: Record<string, unknown>; count: number; sum: number; buckets?: Record<string, number>; quantiles?: unknown };
type StoredMetric = { name: string; type: string; snapshot(): HistogramItem[] };
type Prometheus = InstanceType<typeof MetricReporters.Prometheus> & {
  generatePrometheusResponse(): string;
  registry: { store: Map<string, StoredMetric> };
  matchMetricName(name: string): boolean;
  formatMetricName(name: string): string;
  labelsToStr(labels: Record<string, unknown>, extra?: Record<string, unknown>): string;
};

/**
 * Moleculer's Prometheus reporter, minus its own HTTP server: the gateway serves its text
 * at /metrics on the API port instead of opening another port. Its text is completed with the
 * `_sum` and `_count` series of every histogram kept without quantiles (the request times, the
 * workflow commits): the exposition format requires them, and moleculer writes them only
 * next to quantiles.
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
    const text = this.generatePrometheusResponse();
    const after = this.missingHistogramSeries();
    if (after.size === 0) return text;
    const lines = text.split('\n');
    const out: string[] = [];
    for (const line of lines) {
      out.push(line);
      const extra = after.get(line);
      if (extra) out.push(...extra);
    }
    return out.join('\n');
  }

  /** For each bucketed histogram item without quantiles: its `+Inf` bucket line, and the two lines to follow it. */
  private missingHistogramSeries(): Map<string, string[]> {
    const after = new Map<string, string[]>();
    for (const metric of this.registry.store.values()) {
      if (metric.type !== METRIC.TYPE_HISTOGRAM || !this.matchMetricName(metric.name)) continue;
      const name = this.formatMetricName(metric.name).replace(/[.-]/g, '_');
      for (const item of metric.snapshot()) {
        if (!item.buckets || item.quantiles) continue;
        const inf = `${name}_bucket${this.labelsToStr(item.labels, { le: '+Inf' })} ${item.count ?? 'NaN'}`;
        const labels = this.labelsToStr(item.labels);
        after.set(inf, [`${name}_sum${labels} ${item.sum ?? 'NaN'}`, `${name}_count${labels} ${item.count ?? 'NaN'}`]);
      }
    }
    return after;
  }
}
