import type { Context, ServiceBroker } from 'moleculer';
import { kernelOf } from '../../../kernel/context.ts';
import { entityOf } from '../../../kernel/tenancy/identity.ts';
import { collectUsage } from '../collect.ts';
import { findUsageContributors } from '../contributors.ts';
import { SUMMARY_PARAMS, SUMMARY_RESPONSE } from '../schemas.ts';
import { sumContributions } from '../tally.ts';

const DAY_MS = 86_400_000;

type This = { broker: ServiceBroker; logger: { warn(...args: unknown[]): void } };

/**
 * `GET /api/v1/usage/summary?days=30`: the caller's entity's usage over the last `days` days,
 * summed from every package that contributes (see kernel/usage-contract.ts). Any member of the entity may
 * read it: it holds aggregate counts only.
 */
export const summaryAction = {
  rest: 'GET /summary',
  summary: "Usage of the caller's entity over the last `days` days: tasks, runs, jobs, model tokens, storage bytes",
  tags: ['operations'],
  params: SUMMARY_PARAMS,
  response: SUMMARY_RESPONSE,
  async handler(this: This, ctx: Context<{ days: number }>) {
    const entityId = entityOf(ctx);
    const until = new Date();
    const since = new Date(until.getTime() - ctx.params.days * DAY_MS);
    const timeoutMs = kernelOf(this.broker).config.env.USAGE_SOURCE_TIMEOUT_MS;
    const sources = await collectUsage(ctx, findUsageContributors(this.broker), { entity_id: entityId, since: since.toISOString() }, timeoutMs, this.logger);
    const totals = sumContributions(sources.filter((s) => s.status === 'ok').map((s) => s.counts));
    return {
      entity_id: entityId,
      days: ctx.params.days,
      since: since.toISOString(),
      until: until.toISOString(),
      ...totals,
      complete: sources.every((s) => s.status === 'ok'),
      sources,
    };
  },
};
