import type { ServiceSchema } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { pooledSql } from '../../kernel/db/pooled-sql.ts';
import { usageWrites } from './usage-writes.ts';
import { loadSecretKey } from '../../kernel/secrets/secret-key.ts';
import { sealedBox } from '../../kernel/secrets/sealed-box.ts';
import { defineModelsModels } from './model.ts';
import type { ModelsService } from './service.ts';
import { list } from './actions/list.ts';
import { create } from './actions/create.ts';
import { get } from './actions/get.ts';
import { update } from './actions/update.ts';
import { rotate } from './actions/rotate.ts';
import { remove } from './actions/remove.ts';
import { chat, chatStream } from './actions/chat.ts';
import { generate, generateStream } from './actions/generate.ts';
import { AddressPolicy } from '../../kernel/net/address-policy.ts';
import { guardedFetch } from '../../kernel/net/guarded-fetch.ts';
import { BASE_URL_HINT } from './base-url.ts';
import { usageSummary } from './actions/usage.ts';
import { AttemptThreads, threadCount } from './sdk/attempt-threads.ts';

/** The sealed-box purpose of model provider keys (its own derived key under SECRET_KEY). */
const SEAL_PURPOSE = 'model-api-keys';

/**
 * Models: bring-your-own model provider keys under `/api/v1/api-keys` (sealed at rest with a
 * key derived from SECRET_KEY, shown only as metadata and a prefix) and the provider client
 * other packages call through `models.chat` / `models.chatStream` (kernel/models-contract.ts)
 * and `models.generate` / `models.generateStream` (kernel/models-generate-contract.ts), all on the
 * AI SDK.
 * Loaded on every role, so a caller on any node has a local instance. See README.md.
 */
export default {
  name: 'models',
  settings: { rest: '/api-keys' },
  actions: { list, create, get, update, rotate, remove, chat, chatStream, generate, generateStream, usageSummary },
  created(this: ModelsService) {
    const kernel = kernelOf(this.broker);
    const env = kernel.config.env;
    this.models = defineModelsModels(kernel.db);
    this.sql = pooledSql(kernel.db, { namedStatements: !kernel.config.embedded.database });
    this.usage = usageWrites(this.sql);
    const secret = loadSecretKey(env);
    this.box = sealedBox(secret.material, SEAL_PURPOSE);
    if (secret.source === 'generated') this.logger.info({ path: secret.path, key_id: this.box.keyId }, 'generated the secret key for stored credentials (set SECRET_KEY to share it between nodes)');
    if (secret.source !== 'env' && env.TRANSPORTER) {
      this.logger.warn({ path: secret.path, key_id: this.box.keyId }, 'SECRET_KEY is not set on a clustered node: every node must share one secret, or keys stored by one node cannot be read by another (MODELS_ERR_KEY_UNREADABLE)');
    }
    const policy = new AddressPolicy(env.MODEL_BASE_URL_ALLOW);
    this.providers = {
      baseUrls: { openai: env.MODEL_OPENAI_BASE_URL, anthropic: env.MODEL_ANTHROPIC_BASE_URL },
      timeoutMs: env.MODEL_REQUEST_TIMEOUT_SECONDS * 1000,
      maxRetries: env.MODEL_MAX_RETRIES,
      policy,
      guardedFetch: guardedFetch({ policy, hint: BASE_URL_HINT }),
      threads: new AttemptThreads(threadCount(env.MODEL_STREAM_THREADS), { allow: [...env.MODEL_BASE_URL_ALLOW] }, this.logger),
    };
  },
  async stopped(this: ModelsService) {
    await this.providers.threads.close();
  },
} as unknown as ServiceSchema;
