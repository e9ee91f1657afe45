import type { ActionSchema, Service } from 'moleculer';
import type { PooledSql } from '../../kernel/db/pooled-sql.ts';
import type { ActionDocKeys, RestDeclaration } from '../../kernel/openapi/types.ts';
import type { SealedBox } from '../../kernel/secrets/sealed-box.ts';
import type { AddressPolicy } from '../../kernel/net/address-policy.ts';
import type { ModelsModels } from './model.ts';
import type { UsageWrites } from './usage-writes.ts';
import type { AttemptThreads } from './sdk/attempt-threads.ts';

/** The service instance the actions run on: `created()` sets these. */
export interface ModelsService extends Service {
  models: ModelsModels;
  /** the statements of every model call (its key, the stamp, the usage row) on the pooled connections */
  sql: PooledSql;
  /** usage rows and key stamps, group-committed */
  usage: UsageWrites;
  /** seals and opens raw keys (purpose `model-api-keys`) */
  box: SealedBox;
  providers: {
    /** the deployment defaults (trusted operator settings, not SSRF-checked) */
    baseUrls: { openai: string; anthropic: string };
    timeoutMs: number;
    /** MODEL_MAX_RETRIES */
    maxRetries: number;
    /** what a key's own base_url may reach (MODEL_BASE_URL_ALLOW opens refused ranges) */
    policy: AddressPolicy;
    /** the SSRF-guarded streaming fetch the SDK uses for a key's own base_url */
    guardedFetch: typeof fetch;
    /** where provider attempts run (MODEL_STREAM_THREADS) */
    threads: AttemptThreads;
  };
}

/** `timeout`: moleculer's per-action call timeout (ms; 0 = none), which its typings leave out */
export type ModelsAction = ActionSchema<ModelsService> & ActionDocKeys & { rest?: RestDeclaration; timeout?: number };

/** The sealed-box context of a key: a sealed value copied to another row (or entity) does not open. */
export function sealContext(entityId: string, keyId: string): string {
  return `model_api_keys:${entityId}:${keyId}`;
}
