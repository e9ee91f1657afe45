/** Checks a ttl option and rounds it up to whole milliseconds (Redis PX takes integers). */
export function normaliseTtlMs(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new Error(`ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  }
  return Math.ceil(ttlMs);
}
