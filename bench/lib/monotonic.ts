/**
 * The machine's monotonic clock in milliseconds (CLOCK_MONOTONIC, the same in every process of
 * the machine), for timestamps compared across processes, e.g. when a provider process wrote a
 * token and when the load generator read it.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** A monotonic instant of any process as this process's performance.now(). */
export function toPerformanceNow(monotonic: number): number {
  return monotonic - (monotonicMs() - performance.now());
}
