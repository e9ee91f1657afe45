import { USAGE_COUNTERS, type UsageContribution, type UsageCounter } from '../../kernel/usage-contract.ts';

export type UsageTotals = Record<UsageCounter, number>;

/**
 * Checks one contributor's answer: an object whose counters (any of the five) are
 * non-negative safe integers. Other keys are ignored. Returns the counters it gave, or why the
 * answer cannot be used.
 */
export function readContribution(value: unknown): { counts: UsageContribution } | { problem: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'the answer is not an object' };
  const counts: UsageContribution = {};
  for (const counter of USAGE_COUNTERS) {
    const n = (value as Record<string, unknown>)[counter];
    if (n === undefined || n === null) continue;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return { problem: `${counter} is not a non-negative integer` };
    counts[counter] = n;
  }
  return { counts };
}

/** Sums the counters of the usable contributions; a counter nobody gave is 0. */
export function sumContributions(contributions: UsageContribution[]): UsageTotals {
  const totals = Object.fromEntries(USAGE_COUNTERS.map((c) => [c, 0])) as UsageTotals;
  for (const counts of contributions) {
    for (const counter of USAGE_COUNTERS) totals[counter] += counts[counter] ?? 0;
  }
  return totals;
}
