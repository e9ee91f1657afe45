import type { Context } from 'moleculer';
import { KEY_ID_PARAM } from '../fields.ts';
import { loadKey } from '../key-store.ts';
import type { ModelsAction } from '../service.ts';
import { API_KEY_SCHEMA, apiKeyView } from '../views.ts';

/** `GET /api/v1/api-keys/{id}`: one key's metadata. */
export const get: ModelsAction = {
  rest: 'GET /:id',
  summary: 'Get a model provider key (metadata and prefix, never the secret)',
  tags: ['models'],
  params: { ...KEY_ID_PARAM },
  response: API_KEY_SCHEMA,
  async handler(ctx: Context<{ id: string }>) {
    return apiKeyView(await loadKey(this, ctx, ctx.params.id));
  },
};
