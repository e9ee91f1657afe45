import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { IS_DEFAULT_RULE, KEY_ID_PARAM, MODEL_RULE, NAME_RULE } from '../fields.ts';
import { clearOtherDefaults, loadKey, withEntityLock } from '../key-store.ts';
import type { ModelsAction } from '../service.ts';
import { BASE_URL_RULE, checkBaseUrl } from '../base-url.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { API_KEY_SCHEMA, apiKeyView } from '../views.ts';

interface UpdateParams {
  id: string;
  name?: string;
  default_model?: string;
  base_url?: string | null;
  is_default?: boolean;
}

/** `PUT /api/v1/api-keys/{id}`: renames, changes the default model, or (un)sets the default. Not the key itself: see rotate. */
export const update: ModelsAction = {
  rest: 'PUT /:id',
  role: 'admin',
  summary: 'Update a model provider key\'s name, default model, base URL or default flag',
  description:
    'Owners and admins. Fields left out keep their value. `api_key` and `provider` are not accepted here (422): replace the key with `POST /api-keys/{id}/rotate`. `base_url: null` returns to the deployment default (not for openai_compatible keys). ' +
    '`is_default: true` clears the flag on the entity\'s other keys; `is_default: false` on the default key leaves the entity without a default.',
  tags: ['models'],
  params: {
    ...KEY_ID_PARAM,
    name: { ...NAME_RULE, optional: true },
    default_model: { ...MODEL_RULE, optional: true },
    base_url: { ...BASE_URL_RULE, optional: true, nullable: true },
    is_default: { ...IS_DEFAULT_RULE, optional: true },
  },
  response: API_KEY_SCHEMA,
  async handler(ctx: Context<UpdateParams>) {
    const who = identityOf(ctx);
    const { id, name, default_model, is_default } = ctx.params;
    const base_url = typeof ctx.params.base_url === 'string' ? await checkBaseUrl(this, ctx.params.base_url) : ctx.params.base_url;
    const row = await withEntityLock(this, who.entity_id, async (transaction) => {
      const row = await loadKey(this, ctx, id, { transaction, lock: true });
      if (is_default === true && !row.is_default) await clearOtherDefaults(this, who.entity_id, row.id, transaction);
      if (name !== undefined) row.name = name;
      if (default_model !== undefined) row.default_model = default_model;
      if (base_url === null && row.provider === 'openai_compatible') {
        throw ERRORS.VALIDATION_FAILED('Validation failed.', [{ field: 'base_url', message: "The 'base_url' field is required for provider openai_compatible: it cannot be cleared.", type: 'required' }]);
      }
      if (base_url !== undefined) row.base_url = base_url;
      if (is_default !== undefined) row.is_default = is_default;
      if (row.changed()) await row.save({ transaction });
      return row;
    });
    return apiKeyView(row);
  },
};
