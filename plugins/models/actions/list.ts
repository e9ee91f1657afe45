import type { Context } from 'moleculer';
import type { JSONSchema } from '../../../kernel/openapi/types.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { repoOf } from '../key-store.ts';
import type { ApiKeyAttributes } from '../model.ts';
import type { ModelsAction } from '../service.ts';
import { API_KEY_SCHEMA, apiKeyView } from '../views.ts';

/** `GET /api/v1/api-keys`: the entity's keys, metadata and prefixes only. */
export const list: ModelsAction = {
  rest: 'GET /',
  summary: 'List model provider keys (metadata and prefixes, never the secret)',
  description: 'Newest first. Any member of the entity may read the list.',
  tags: ['models'],
  params: { ...PAGING_PARAMS },
  response: pageSchema(API_KEY_SCHEMA) as JSONSchema,
  async handler(ctx: Context<{ limit: number; offset: number }>) {
    const { limit, offset } = ctx.params;
    const page = await repoOf(this).pageRows<Omit<ApiKeyAttributes, 'sealed_key'>>(ctx, {
      order: [['created_at', 'DESC'], ['id', 'DESC']],
      limit,
      offset,
      exclude: ['sealed_key'], // a list never reads the secret at all
    });
    return { ...page, items: page.items.map(apiKeyView) };
  },
};
