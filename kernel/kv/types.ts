export interface KeyValueSetOptions {
  /** Expire the key after this many milliseconds; without it the key never expires. */
  ttlMs?: number;
}

/**
 * A string key-value store with expiry: Redis when a URL is configured,
 * an in-process map otherwise. Both drivers pass test/helpers/kv-contract.ts.
 */
export interface KeyValueStore {
  readonly driver: 'redis' | 'memory';
  get(key: string): Promise<string | null>;
  /** Replaces the value and its expiry (a set without ttlMs clears any expiry). */
  set(key: string, value: string, opts?: KeyValueSetOptions): Promise<void>;
  del(key: string): Promise<void>;
  /** Adds 1 and returns the new value; ttlMs applies only when this call creates the key. */
  incr(key: string, opts?: KeyValueSetOptions): Promise<number>;
  /** Milliseconds left before the key expires; null when it is missing or has no expiry. */
  ttlMs(key: string): Promise<number | null>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
