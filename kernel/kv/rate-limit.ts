import type { KeyValueStore } from './types.ts';

export interface RateLimitResult {
  allowed: boolean;
  /** Hits left in the current window (0 once refused). */
  remaining: number;
  /** Seconds until the window resets: the Retry-After value for a 429 (0 when allowed). */
  retryAfterSec: number;
}

export interface RateLimiterOptions {
  /** Prepended to every counter key (default 'ratelimit:'). */
  keyPrefix?: string;
}

/**
 * Fixed-window rate limiting on any KeyValueStore: the first hit creates a
 * counter that expires after windowMs; hits beyond the limit are refused
 * until it expires.
 */
export class RateLimiter {
  private readonly keyPrefix: string;

  constructor(
    private readonly store: KeyValueStore,
    opts: RateLimiterOptions = {},
  ) {
    this.keyPrefix = opts.keyPrefix ?? 'ratelimit:';
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`Rate limit must be a positive integer, got ${limit}`);
    if (!Number.isFinite(windowMs) || windowMs <= 0) throw new Error(`Rate-limit window must be a positive number of milliseconds, got ${windowMs}`);
    const counterKey = this.keyPrefix + key;
    const count = await this.store.incr(counterKey, { ttlMs: windowMs });
    if (count <= limit) return { allowed: true, remaining: limit - count, retryAfterSec: 0 };
    // The counter can expire between incr and ttl; a full window is then a safe upper bound.
    const leftMs = (await this.store.ttlMs(counterKey)) ?? windowMs;
    return { allowed: false, remaining: 0, retryAfterSec: Math.max(1, Math.ceil(leftMs / 1000)) };
  }
}
