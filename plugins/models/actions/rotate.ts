import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { API_KEY_RULE, KEY_ID_PARAM, keyPrefixOf } from '../fields.ts';
import { loadKey } from '../key-store.ts';
import { sealContext, type ModelsAction } from '../service.ts';
import { API_KEY_SCHEMA, apiKeyView } from '../views.ts';

/** `POST /api/v1/api-keys/{id}/rotate`: replaces the raw key; the old one is never used again. */
export const rotate: ModelsAction = {
  rest: 'POST /:id/rotate',
  role: 'admin',
  summary: 'Rotate a model provider key: replace the raw key',
  description: 'Owners and admins. The new `api_key` replaces the stored one at once (calls that start afterwards use it); `key_prefix` and `rotated_at` change, the id, name, default model and default flag stay.',
  tags: ['models'],
  params: { ...KEY_ID_PARAM, api_key: API_KEY_RULE },
  response: API_KEY_SCHEMA,
  async handler(ctx: Context<{ id: string; api_key: string }>) {
    const who = identityOf(ctx);
    const { id, api_key } = ctx.params;
    const row = await this.models.ApiKey.sequelize!.transaction(async (transaction) => {
      const row = await loadKey(this, ctx, id, { transaction, lock: true });
      row.sealed_key = this.box.seal(api_key, sealContext(row.entity_id, row.id));
      row.key_prefix = keyPrefixOf(api_key);
      row.rotated_at = new Date();
      await row.save({ transaction });
      return row;
    });
    this.logger.info({ entity_id: who.entity_id, api_key_id: row.id }, 'model provider key rotated');
    return apiKeyView(row);
  },
};
