/**
 * The usage contribution contract: how any package adds its numbers to
 * `GET /api/v1/usage/summary` without the usage package knowing it.
 *
 * A service publishes an action named `usageSummary` (visibility 'public', no `rest`) taking
 * `{ entity_id, since }` (`since`: ISO 8601 UTC start of the window) and returning a partial
 * `{ tasks?, runs?, jobs?, tokens?, storage_bytes? }` of non-negative integers, counted from
 * rows of `entity_id` only:
 *
 * - `tasks`: tasks created since `since`;
 * - `runs`: workflow and agent runs started since `since`;
 * - `jobs`: scheduled job fires since `since`;
 * - `tokens`: model tokens (input + output) used by model calls since `since`;
 * - `storage_bytes`: bytes the entity stores now (a level: `since` does not apply).
 *
 * The summary reads the registry on every request (a hot-loaded package counts at once),
 * calls each contributing action once, in parallel, with a timeout of USAGE_SOURCE_TIMEOUT_MS,
 * and sums the answers. A contributor that throws, times out or answers something else than
 * the shape above is listed under `sources` with its status and left out of the sums; the
 * request itself still succeeds (`complete: false`). Keys outside the five are ignored.
 *
 *   actions: {
 *     usageSummary: {
 *       visibility: 'public',
 *       params: USAGE_SUMMARY_PARAMS,
 *       handler: async (ctx) => ({ tasks: await countCreatedSince(ctx.params.entity_id, ctx.params.since) }),
 *     },
 *   }
 */

export const USAGE_SUMMARY_ACTION = 'usageSummary';

export const USAGE_COUNTERS = ['tasks', 'runs', 'jobs', 'tokens', 'storage_bytes'] as const;

export type UsageCounter = (typeof USAGE_COUNTERS)[number];

/** What a `usageSummary` action returns: any of the counters it knows. */
export type UsageContribution = Partial<Record<UsageCounter, number>>;

export interface UsageSummaryParams {
  entity_id: string;
  /** ISO 8601 UTC start of the window */
  since: string;
}

/** `params` for a `usageSummary` action (fastest-validator). */
export const USAGE_SUMMARY_PARAMS = {
  $$strict: true,
  entity_id: { type: 'string', min: 1, max: 64 },
  since: { type: 'string', min: 20, max: 32 },
} as const;
