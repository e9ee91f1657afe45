import { MemoryKeyValueStore } from './memory.ts';
import { RedisKeyValueStore } from './redis.ts';
import type { KeyValueStore } from './types.ts';

export type { KeyValueSetOptions, KeyValueStore } from './types.ts';
export { RateLimiter, type RateLimitResult, type RateLimiterOptions } from './rate-limit.ts';
export { deriveRedisUrls, redactRedisUrl, type RedisUrls } from './redis-url.ts';
export { MemoryKeyValueStore } from './memory.ts';
export { RedisKeyValueStore } from './redis.ts';

export interface CreateKeyValueStoreOptions {
  /** A Redis URL with its database (e.g. deriveRedisUrls(REDIS_URL).cache); none -> in-memory. */
  url?: string;
  keyPrefix?: string;
  connectTimeoutMs?: number;
  onError?: (error: Error) => void;
}

export function createKeyValueStore(opts: CreateKeyValueStoreOptions = {}): KeyValueStore {
  if (!opts.url) return new MemoryKeyValueStore();
  return new RedisKeyValueStore({
    url: opts.url,
    keyPrefix: opts.keyPrefix,
    connectTimeoutMs: opts.connectTimeoutMs,
    onError: opts.onError,
  });
}
