import { METRIC, type ServiceBroker } from 'moleculer';
import type { FlushStats } from '../../kernel/db/group-commit.ts';
import type { CommitKind } from './store/runs.ts';

const BATCH_SIZE = 'workflows.commit.batch.size';
const WAIT = 'workflows.commit.wait';
const FLUSH = 'workflows.commit.flush';
const FAILED = 'workflows.commit.failed.total';

/**
 * Prometheus metrics of the run store's group commits, by `kind` (run_create, step_commit):
 * statements' sizes, how long their oldest item waited for a free slot, their round trips, and
 * the statements that failed. What an operator tunes WORKFLOW_COMMIT_SLOTS by: long waits with
 * a quick database call for more slots; small batches with long round trips, for fewer.
 * Observed once per statement, not per item. Undefined when metrics are off.
 */
export function commitMetrics(broker: ServiceBroker): ((kind: CommitKind, stats: FlushStats) => void) | undefined {
  if (!broker.isMetricsEnabled()) return undefined;
  const metrics = broker.metrics;
  const labelNames = ['kind'];
  const ms = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 1000];
  metrics.register({ name: BATCH_SIZE, type: METRIC.TYPE_HISTOGRAM, labelNames, buckets: [1, 2, 4, 8, 16, 32, 64], quantiles: false, description: 'Items per group-commit statement' });
  metrics.register({ name: WAIT, type: METRIC.TYPE_HISTOGRAM, labelNames, buckets: ms, quantiles: false, unit: METRIC.UNIT_MILLISECONDS, description: 'Wait of the oldest item of a group-commit statement for a free slot' });
  metrics.register({ name: FLUSH, type: METRIC.TYPE_HISTOGRAM, labelNames, buckets: ms, quantiles: false, unit: METRIC.UNIT_MILLISECONDS, description: 'Round trip of a group-commit statement' });
  metrics.register({ name: FAILED, type: METRIC.TYPE_COUNTER, labelNames, description: 'Group-commit statements that failed' });
  const labels: Record<CommitKind, { kind: CommitKind }> = { run_create: { kind: 'run_create' }, step_commit: { kind: 'step_commit' } };
  return (kind, stats) => {
    metrics.observe(BATCH_SIZE, stats.size, labels[kind]);
    metrics.observe(WAIT, stats.waitedMs, labels[kind]);
    metrics.observe(FLUSH, stats.flushMs, labels[kind]);
    if (!stats.ok) metrics.increment(FAILED, labels[kind]);
  };
}
