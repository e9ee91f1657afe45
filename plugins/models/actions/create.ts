import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { newId } from '../../../kernel/tenancy/ids.ts';
import type { ModelProvider } from '../../../kernel/models-contract.ts';
import { API_KEY_RULE, IS_DEFAULT_RULE, keyPrefixOf, MODEL_RULE, NAME_RULE, PROVIDER_RULE } from '../fields.ts';
import { clearOtherDefaults, hasDefault, repoOf, withEntityLock } from '../key-store.ts';
import { sealContext, type ModelsAction } from '../service.ts';
import { BASE_URL_RULE, checkBaseUrl } from '../base-url.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { API_KEY_SCHEMA, apiKeyView } from '../views.ts';

interface CreateParams {
  name: string;
  provider: ModelProvider;
  api_key: string;
  default_model: string;
  base_url?: string;
  is_default?: boolean;
}

/** `POST /api/v1/api-keys`: stores a provider key, sealed; answers its metadata. */
export const create: ModelsAction = {
  rest: 'POST /',
  role: 'admin',
  summary: 'Add a model provider key',
  description:
    'Owners and admins. The raw `api_key` is encrypted at rest and never shown again: responses carry `key_prefix` only. ' +
    '`provider`: `openai` (the OpenAI chat-completions API), `anthropic` or `openai_compatible` (any OpenAI-compatible chat-completions server; needs `base_url`). `base_url`: the key\'s own API base URL (http or https; addresses in loopback, link-local, private or unique-local ranges are refused with 422 `MODELS_ERR_BASE_URL_BLOCKED` unless the operator allows them). `is_default: true` makes it the default key of the entity ' +
    '(the previous default is cleared); a key created while the entity has no default becomes the default whatever `is_default` says.',
  tags: ['models'],
  params: {
    name: NAME_RULE,
    provider: PROVIDER_RULE,
    api_key: API_KEY_RULE,
    default_model: MODEL_RULE,
    base_url: { ...BASE_URL_RULE, optional: true },
    is_default: { ...IS_DEFAULT_RULE, optional: true },
  },
  response: { 201: { description: 'The new key (metadata only)', schema: API_KEY_SCHEMA } },
  async handler(ctx: Context<CreateParams, { $statusCode?: number }>) {
    const who = identityOf(ctx);
    const { name, provider, api_key, default_model, is_default = false } = ctx.params;
    if (provider === 'openai_compatible' && ctx.params.base_url === undefined) {
      throw ERRORS.VALIDATION_FAILED('Validation failed.', [{ field: 'base_url', message: "The 'base_url' field is required for provider openai_compatible.", type: 'required' }]);
    }
    const base_url = ctx.params.base_url === undefined ? null : await checkBaseUrl(this, ctx.params.base_url);
    const id = newId();
    const row = await withEntityLock(this, who.entity_id, async (transaction) => {
      const makeDefault = is_default || !(await hasDefault(this, who.entity_id, transaction));
      // a key that is the default only because there was none has no other default to clear
      if (is_default) await clearOtherDefaults(this, who.entity_id, id, transaction);
      return repoOf(this).create(
        ctx,
        { id, name, provider, sealed_key: this.box.seal(api_key, sealContext(who.entity_id, id)), key_prefix: keyPrefixOf(api_key), default_model, base_url, is_default: makeDefault, created_by: who.id },
        { transaction },
      );
    });
    this.logger.info({ entity_id: who.entity_id, api_key_id: row.id, provider, is_default: row.is_default }, 'model provider key added');
    ctx.meta.$statusCode = 201;
    return apiKeyView(row);
  },
};
