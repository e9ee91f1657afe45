import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { KEY_ID_PARAM } from '../fields.ts';
import { loadKey, promoteOldest, withEntityLock } from '../key-store.ts';
import type { ModelsAction } from '../service.ts';

/** `DELETE /api/v1/api-keys/{id}`: deletes the key for good (its usage history stays). */
export const remove: ModelsAction = {
  rest: 'DELETE /:id',
  role: 'admin',
  summary: 'Delete a model provider key',
  description: 'Owners and admins. Deleting the default key makes the oldest remaining key the default.',
  tags: ['models'],
  params: { ...KEY_ID_PARAM },
  response: { 204: { description: 'Deleted' } },
  async handler(ctx: Context<{ id: string }>) {
    const who = identityOf(ctx);
    await withEntityLock(this, who.entity_id, async (transaction) => {
      const row = await loadKey(this, ctx, ctx.params.id, { transaction, lock: true });
      await this.models.ApiKey.destroy({ where: { entity_id: who.entity_id, id: row.id }, transaction });
      if (row.is_default) await promoteOldest(this, who.entity_id, transaction);
    });
    this.logger.info({ entity_id: who.entity_id, api_key_id: ctx.params.id }, 'model provider key deleted');
    return undefined;
  },
};
