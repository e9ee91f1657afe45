import { createHash } from 'node:crypto';
import type { KernelContext } from '../context.ts';
import type { KeyValueStore } from '../kv/types.ts';

/**
 * Serialised answers of a read-mostly list, per entity, invalidated by a generation counter:
 * every write of the collection bumps the entity's generation, so no stale page is ever served
 * after the write returns (keys of older generations simply expire). Both the counter and the
 * pages live in the kernel's cache store: Redis db /0 when configured, which every node shares.
 * Without Redis the store is per process, so a cluster without REDIS_URL does not cache at all.
 */
export class CollectionCache {
  private readonly enabled: boolean;

  constructor(private readonly store: KeyValueStore, private readonly name: string, opts: { enabled: boolean; ttlMs?: number }) {
    this.enabled = opts.enabled;
    this.ttlMs = opts.ttlMs ?? 60_000;
  }

  private readonly ttlMs: number;

  /** The cache a node should use: on unless several nodes would each keep their own copy. */
  static for(kernel: KernelContext, name: string): CollectionCache {
    const shared = kernel.cache.driver === 'redis' || !kernel.config.env.TRANSPORTER;
    return new CollectionCache(kernel.cache, name, { enabled: shared });
  }

  /** The cached body for this query, or what `build` makes (then stored for the next caller). */
  async read(entityId: string, query: unknown, build: () => Promise<string>): Promise<string> {
    if (!this.enabled) return build();
    const generation = (await this.store.get(this.generationKey(entityId))) ?? '0';
    const key = `cache:${this.name}:${entityId}:${generation}:${digest(query)}`;
    const hit = await this.store.get(key);
    if (hit !== null) return hit;
    const body = await build();
    // a write that raced with build() bumped the generation: the page is stored under the old one
    await this.store.set(key, body, { ttlMs: this.ttlMs });
    return body;
  }

  /** Call after every committed write of the collection. */
  async invalidate(entityId: string): Promise<void> {
    if (this.enabled) await this.store.incr(this.generationKey(entityId), { ttlMs: 24 * 3600_000 });
  }

  private generationKey(entityId: string): string {
    return `cache:${this.name}:gen:${entityId}`;
  }
}

function digest(query: unknown): string {
  return createHash('sha1').update(JSON.stringify(query)).digest('base64url');
}
