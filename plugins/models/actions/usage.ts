import type { Context } from 'moleculer';
import { QueryTypes } from 'sequelize';
import { USAGE_SUMMARY_PARAMS, type UsageContribution, type UsageSummaryParams } from '../../../kernel/usage-contract.ts';
import type { ModelsAction } from '../service.ts';

/** `models.usageSummary` (kernel/usage-contract.ts): model tokens (input + output) the entity used since `since`. */
export const usageSummary: ModelsAction = {
  visibility: 'public',
  params: USAGE_SUMMARY_PARAMS,
  async handler(ctx: Context<UsageSummaryParams>): Promise<UsageContribution> {
    const [row] = await this.models.ApiKey.sequelize!.query<{ tokens: string | number }>(
      'SELECT COALESCE(SUM(input_tokens + output_tokens), 0)::bigint AS tokens FROM model_calls WHERE entity_id = $1 AND created_at >= $2::timestamptz',
      { bind: [ctx.params.entity_id, ctx.params.since], type: QueryTypes.SELECT },
    );
    return { tokens: Number(row.tokens) };
  },
};
