import type { Context } from 'moleculer';
import { Op, UniqueConstraintError, type Transaction } from 'sequelize';
import { validate as isUuid } from 'uuid';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { entityOf } from '../../kernel/tenancy/identity.ts';
import { tenantRepo } from '../../kernel/tenancy/repo.ts';
import { SealedBoxError } from '../../kernel/secrets/sealed-box.ts';
import { MODELS_ERR } from './errors.ts';
import type { ApiKeyAttributes, ApiKeyRow } from './model.ts';
import { sealContext, type ModelsService } from './service.ts';

/**
 * The rules of the default key, in one place:
 * - at most one default per entity (a partial unique index enforces it; every write that may
 *   change the default takes the entity's advisory lock first, so concurrent writes queue
 *   instead of failing on the index);
 * - a key created while the entity has no default becomes the default;
 * - `is_default: true` on a key clears it on the others in the same transaction;
 * - deleting the default makes the oldest remaining key the default;
 * - `is_default: false` on the default leaves the entity without one (models.chat then needs
 *   `api_key_id`, else MODELS_ERR_NO_KEY).
 */

export const repoOf = (svc: ModelsService) => tenantRepo(svc.models.ApiKey, 'api key');

/** The caller's key with that id, else 404 (also for another entity's key or a non-UUID id). */
export async function loadKey(svc: ModelsService, ctx: Context | string, id: string, opts: { transaction?: Transaction; lock?: boolean } = {}): Promise<ApiKeyRow> {
  if (!isUuid(id)) throw ERRORS.NOT_FOUND(`No api key with id '${id}'.`, { resource: 'api key', id });
  return repoOf(svc).get(ctx, id, opts);
}

/** Runs `work` in a transaction holding the entity's key lock (writes to one entity's keys queue). */
export async function withEntityLock<T>(svc: ModelsService, entityId: string, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  const db = svc.models.ApiKey.sequelize!;
  try {
    return await db.transaction(async (transaction) => {
      await db.query("SELECT pg_advisory_xact_lock(hashtext('model_api_keys:' || $1))", { bind: [entityId], transaction });
      return work(transaction);
    });
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw ERRORS.CONFLICT('Another change to the default key happened at the same time; try again.');
    throw err;
  }
}

/** Clears the default flag on the entity's other keys. */
export async function clearOtherDefaults(svc: ModelsService, entityId: string, keepId: string, transaction: Transaction): Promise<void> {
  await svc.models.ApiKey.update({ is_default: false }, { where: { entity_id: entityId, is_default: true, id: { [Op.ne]: keepId } }, transaction });
}

export async function hasDefault(svc: ModelsService, entityId: string, transaction: Transaction): Promise<boolean> {
  return (await svc.models.ApiKey.count({ where: { entity_id: entityId, is_default: true }, transaction })) > 0;
}

/** After the default was deleted: the oldest remaining key becomes the default (if any is left). */
export async function promoteOldest(svc: ModelsService, entityId: string, transaction: Transaction): Promise<void> {
  const oldest = await svc.models.ApiKey.findOne({ where: { entity_id: entityId }, order: [['created_at', 'ASC'], ['id', 'ASC']], transaction });
  if (oldest) await svc.models.ApiKey.update({ is_default: true }, { where: { entity_id: entityId, id: oldest.id }, transaction });
}

/**
 * The key a model call uses: the one named (404 if it is not the caller's) or the entity's
 * default (MODELS_ERR_NO_KEY when there is none). A plain row, read on the pooled connections:
 * every model call reads its key.
 */
export async function pickKey(svc: ModelsService, ctx: Context, apiKeyId: string | undefined): Promise<ApiKeyAttributes> {
  const entityId = entityOf(ctx);
  if (apiKeyId) {
    const named = isUuid(apiKeyId) ? await svc.sql.one<ApiKeyAttributes>('SELECT * FROM model_api_keys WHERE entity_id = $1 AND id = $2', [entityId, apiKeyId], 'models_key_by_id') : undefined;
    if (!named) throw ERRORS.NOT_FOUND(`No api key with id '${apiKeyId}'.`, { resource: 'api key', id: apiKeyId });
    return named;
  }
  const row = await svc.sql.one<ApiKeyAttributes>('SELECT * FROM model_api_keys WHERE entity_id = $1 AND is_default', [entityId], 'models_default_key');
  if (!row) {
    throw MODELS_ERR.NO_KEY('The entity has no default model provider key: add one with POST /api/v1/api-keys (the first key becomes the default), or pass api_key_id.', { field: 'api_key_id' });
  }
  return row;
}

/** The raw key of a row; a clear 409 when it was sealed under another SECRET_KEY (or altered). */
export function openKey(svc: ModelsService, row: Pick<ApiKeyAttributes, 'id' | 'entity_id' | 'name' | 'sealed_key'>): string {
  try {
    return svc.box.open(row.sealed_key, sealContext(row.entity_id, row.id));
  } catch (err) {
    if (!(err instanceof SealedBoxError)) throw err;
    svc.logger.warn({ api_key_id: row.id, entity_id: row.entity_id, reason: err.reason, key_id: svc.box.keyId }, 'a stored model provider key cannot be opened');
    throw MODELS_ERR.KEY_UNREADABLE(
      `The stored key '${row.name}' cannot be decrypted (${err.reason === 'other_key' ? 'it was stored under another SECRET_KEY' : 'it was altered'}): set the SECRET_KEY it was stored with, or rotate the key (POST /api/v1/api-keys/${row.id}/rotate).`,
      { api_key_id: row.id, reason: err.reason },
    );
  }
}

/** Stamps the key as used now (does not count as an update of the key). */
export async function touchLastUsed(svc: ModelsService, row: Pick<ApiKeyAttributes, 'id' | 'entity_id'>): Promise<void> {
  await svc.usage.stamp({ entity_id: row.entity_id, id: row.id, at: new Date() });
}
