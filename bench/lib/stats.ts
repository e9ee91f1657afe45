/** Small statistics helpers for bench figures. */

export function mean(values: number[]): number {
  if (!values.length) throw new Error('mean of no values');
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0..100) of unsorted values. */
export function percentile(values: number[], p: number): number {
  if (!values.length) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Coefficient of variation (stddev / mean) in percent: how noisy a series of windows was. */
export function spreadPercent(values: number[]): number {
  const m = mean(values);
  const variance = mean(values.map((v) => (v - m) ** 2));
  return (Math.sqrt(variance) / m) * 100;
}

/**
 * A-B-B-A order repeated: A B B A A B B A ... (`count` windows). Each side sees the same number
 * of early and late windows, so a drift of the machine's load cancels out of the ratio.
 */
export function abbaOrder(count: number): ('A' | 'B')[] {
  const pattern: ('A' | 'B')[] = ['A', 'B', 'B', 'A'];
  return Array.from({ length: count }, (_, i) => pattern[i % 4]);
}
