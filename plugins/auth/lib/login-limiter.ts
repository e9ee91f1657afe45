import { createHash } from 'node:crypto';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { RateLimiter } from '../../../kernel/kv/rate-limit.ts';
import type { KeyValueStore } from '../../../kernel/kv/types.ts';

export interface LoginLimits {
  perAccount: number;
  perAddress: number;
  windowSeconds: number;
}

const PREFIX = 'auth:login-failures:';

/**
 * Failed logins, counted per account (the email asked for, whether it exists or not, so a 429
 * does not reveal which emails exist) and per client address, in fixed windows on the kernel
 * cache store (Redis when configured, so all nodes share the counts). Only failures count; a
 * caller over either limit is refused with 429 before any password is checked.
 */
export class LoginLimiter {
  private readonly limiter: RateLimiter;

  constructor(
    private readonly store: KeyValueStore,
    private readonly limits: LoginLimits,
  ) {
    this.limiter = new RateLimiter(store, { keyPrefix: PREFIX });
  }

  /** Throws RATE_LIMITED (429, Retry-After) while the account or the address is over its limit. */
  async assertAllowed(email: string, address: string): Promise<void> {
    const checks: [string, number][] = [
      [accountKey(email), this.limits.perAccount],
      [addressKey(address), this.limits.perAddress],
    ];
    for (const [key, limit] of checks) {
      const failures = Number((await this.store.get(PREFIX + key)) ?? 0);
      if (failures < limit) continue;
      const leftMs = (await this.store.ttlMs(PREFIX + key)) ?? this.limits.windowSeconds * 1000;
      const retryAfter = Math.max(1, Math.ceil(leftMs / 1000));
      throw ERRORS.RATE_LIMITED(`Too many failed logins; try again in ${retryAfter} s.`, { retry_after: retryAfter });
    }
  }

  async recordFailure(email: string, address: string): Promise<void> {
    const windowMs = this.limits.windowSeconds * 1000;
    await Promise.all([
      this.limiter.hit(accountKey(email), this.limits.perAccount, windowMs),
      this.limiter.hit(addressKey(address), this.limits.perAddress, windowMs),
    ]);
  }

  /** Counts against the address only (a sign-up: cheap to repeat, costly to serve). */
  async recordAddressAttempt(address: string): Promise<void> {
    await this.limiter.hit(addressKey(address), this.limits.perAddress, this.limits.windowSeconds * 1000);
  }

  /** A successful login clears the account's failures (not the address's). */
  async clearAccount(email: string): Promise<void> {
    await this.store.del(PREFIX + accountKey(email));
  }
}

/** Keyed by a digest, so cache keys carry no email addresses. */
function accountKey(email: string): string {
  return `account:${createHash('sha256').update(email).digest('base64url')}`;
}

function addressKey(address: string): string {
  return `address:${address}`;
}
