/**
 * Per-node memory of verified bearer tokens, so the gateway's `auth.authenticate` on every
 * request does not query the database. An answer (valid or not) is kept at most `maxAgeMs`
 * (1 s) and never past the token's own expiry; an invalidation event (logout, refresh,
 * deactivation, role change) drops matching entries at once. If an event is lost, the entry
 * still dies within a second, so revocation is honoured within a second either way.
 * Pure: no I/O; the lookup is passed in.
 */

export interface SessionIdentity {
  id: string;
  entity_id: string;
  role: 'owner' | 'admin' | 'member';
  email: string;
  /** the auth_tokens row of the presented token (not a secret): logout and refresh revoke it */
  token_id: string;
}

/** What a lookup found: the identity and when the token expires, or null for "not valid". */
export type SessionLookup = { identity: SessionIdentity; expiresAt: number } | null;

export interface Invalidation {
  token_ids?: string[];
  user_ids?: string[];
}

interface Entry {
  value: SessionIdentity | null;
  until: number;
}

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<SessionIdentity | null>>();
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

  /** The identity for a token hash, or null when the token is not valid. */
  async resolve(tokenHash: string, lookup: () => Promise<SessionLookup>): Promise<SessionIdentity | null> {
    const entry = this.entries.get(tokenHash);
    if (entry && entry.until > this.now()) return entry.value;
    if (entry) this.entries.delete(tokenHash);
    // concurrent requests with one token share one database lookup
    const pending = this.inflight.get(tokenHash);
    if (pending) return pending;
    const started = this.epoch;
    const promise = lookup().then(
      (found) => {
        if (this.inflight.get(tokenHash) === promise) this.inflight.delete(tokenHash);
        if (this.epoch === started) this.remember(tokenHash, found);
        return found?.identity ?? null;
      },
      (err) => {
        if (this.inflight.get(tokenHash) === promise) this.inflight.delete(tokenHash);
        throw err;
      },
    );
    this.inflight.set(tokenHash, promise);
    return promise;
  }

  /** Drops the entries of these tokens and users (and lookups in flight, which may predate it). */
  invalidate(what: Invalidation): void {
    this.epoch++;
    this.inflight.clear();
    const tokens = new Set(what.token_ids ?? []);
    const users = new Set(what.user_ids ?? []);
    for (const [hash, entry] of this.entries) {
      if (entry.value && (tokens.has(entry.value.token_id) || users.has(entry.value.id))) this.entries.delete(hash);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private remember(tokenHash: string, found: SessionLookup): void {
    const now = this.now();
    const until = Math.min(now + this.maxAgeMs, found ? found.expiresAt : Infinity);
    if (until <= now) return;
    const max = this.opts.maxEntries ?? 10_000;
    if (this.entries.size >= max) this.evict(now, max);
    this.entries.set(tokenHash, { value: found?.identity ?? null, until });
  }

  /** Drops expired entries; if that is not enough, the oldest ones (Map keeps insertion order). */
  private evict(now: number, max: number): void {
    for (const [hash, entry] of this.entries) if (entry.until <= now) this.entries.delete(hash);
    for (const hash of this.entries.keys()) {
      if (this.entries.size < max) break;
      this.entries.delete(hash);
    }
  }
}
