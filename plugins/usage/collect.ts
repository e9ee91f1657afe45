import type { Context } from 'moleculer';
import type { UsageContribution, UsageSummaryParams } from '../../kernel/usage-contract.ts';
import type { UsageContributor } from './contributors.ts';
import { readContribution } from './tally.ts';

export type UsageSourceStatus = 'ok' | 'failed' | 'timeout' | 'invalid';

/** What one contributor gave, as `sources` lists it. */
export interface UsageSource extends UsageContributor {
  status: UsageSourceStatus;
  /** the counters it contributed (empty unless `ok`) */
  counts: UsageContribution;
  error: { code: string; message: string } | null;
}

type Logger = { warn(...args: unknown[]): void };

/**
 * Calls every contributor once, in parallel, each with its own timeout, and never throws: a
 * contributor that fails, times out or answers garbage becomes a source with that status.
 */
export function collectUsage(ctx: Context, contributors: UsageContributor[], params: UsageSummaryParams, timeoutMs: number, logger: Logger): Promise<UsageSource[]> {
  return Promise.all(contributors.map((c) => askOne(ctx, c, params, timeoutMs, logger)));
}

async function askOne(ctx: Context, contributor: UsageContributor, params: UsageSummaryParams, timeoutMs: number, logger: Logger): Promise<UsageSource> {
  let answer: unknown;
  try {
    answer = await ctx.call(contributor.action, params, { timeout: timeoutMs, retries: 0 });
  } catch (err) {
    const e = err as { type?: unknown; code?: unknown; message?: string };
    if (e.type === 'REQUEST_TIMEOUT') {
      return { ...contributor, status: 'timeout', counts: {}, error: { code: 'TIMEOUT', message: `No answer within ${timeoutMs} ms.` } };
    }
    logger.warn(`Usage contributor ${contributor.action} failed: ${e.message ?? String(err)}`);
    return { ...contributor, status: 'failed', counts: {}, error: describeFailure(e) };
  }
  const read = readContribution(answer);
  if ('problem' in read) {
    logger.warn(`Usage contributor ${contributor.action} answered an unusable value: ${read.problem}`);
    return { ...contributor, status: 'invalid', counts: {}, error: { code: 'INVALID_CONTRIBUTION', message: `The answer cannot be used: ${read.problem}.` } };
  }
  return { ...contributor, status: 'ok', counts: read.counts, error: null };
}

/** A client-style error (4xx with a code) keeps its message; anything else says nothing of its cause (it is logged). */
function describeFailure(e: { type?: unknown; code?: unknown; message?: string }): { code: string; message: string } {
  const code = typeof e.type === 'string' && /^[A-Z][A-Z0-9_]*$/.test(e.type) ? e.type : 'INTERNAL_ERROR';
  const isClientError = typeof e.code === 'number' && e.code >= 400 && e.code < 500;
  return { code, message: isClientError && e.message ? e.message : 'The contributor failed; the server log has the cause.' };
}
