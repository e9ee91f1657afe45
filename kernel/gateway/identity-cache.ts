import type { Identity, IdentityInvalidation } from './authenticate.ts';

/**
 * The gateway's per-node memory of verified bearer tokens, so an authenticated request neither
 * queries the database nor makes an action call to the identity provider. An answer (valid or
 * not) is kept at most `maxAgeMs` (1 s) and never past the token's own expiry; an invalidation
 * event (logout, refresh, deactivation, role change) drops matching entries at once. If an event
 * is lost, the entry still dies within a second, so revocation is honoured within a second
 * either way. Pure: no I/O; the lookup is passed in.
 */

/** What a lookup found: the identity and when the token expires, or null for "not valid". */
export type IdentityLookup = { identity: Identity; expiresAt: number } | null;

interface Entry {
  value: Identity | null;
  until: number;
}

export class IdentityCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Identity | null>>();
  /** bumped by every invalidation; a lookup that saw another epoch does not cache its answer */
  private epoch = 0;

  constructor(
    private readonly opts: { maxAgeMs?: number; maxEntries?: number; now?: () => number } = {},
  ) {}

  private get maxAgeMs(): number {
    return this.opts.maxAgeMs ?? 1000;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** The identity for a token (the key), or null when the token is not valid. */
  async resolve(key: string, lookup: () => Promise<IdentityLookup>): Promise<Identity | null> {
    const entry = this.entries.get(key);
    if (entry && entry.until > this.now()) return entry.value;
    if (entry) this.entries.delete(key);
    // concurrent requests with one token share one database lookup
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const started = this.epoch;
    const promise = lookup().then(
      (found) => {
        if (this.inflight.get(key) === promise) this.inflight.delete(key);
        if (this.epoch === started) this.remember(key, found);
        return found?.identity ?? null;
      },
      (err) => {
        if (this.inflight.get(key) === promise) this.inflight.delete(key);
        throw err;
      },
    );
    this.inflight.set(key, promise);
    return promise;
  }

  /** Drops the entries of these tokens and users (and lookups in flight, which may predate it). */
  invalidate(what: IdentityInvalidation): void {
    this.epoch++;
    this.inflight.clear();
    const tokens = new Set(what.token_ids ?? []);
    const users = new Set(what.user_ids ?? []);
    for (const [key, entry] of this.entries) {
      if (entry.value && (tokens.has(entry.value.token_id ?? '') || users.has(entry.value.id))) this.entries.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remember(key: string, found: IdentityLookup): void {
    const now = this.now();
    const until = Math.min(now + this.maxAgeMs, found ? found.expiresAt : Infinity);
    if (until <= now) return;
    const max = this.opts.maxEntries ?? 10_000;
    if (this.entries.size >= max) this.evict(now, max);
    this.entries.set(key, { value: found?.identity ?? null, until });
  }

  /** Drops expired entries; if that is not enough, the oldest ones (Map keeps insertion order). */
  private evict(now: number, max: number): void {
    for (const [key, entry] of this.entries) if (entry.until <= now) this.entries.delete(key);
    for (const key of this.entries.keys()) {
      if (this.entries.size < max) break;
      this.entries.delete(key);
    }
  }
}
