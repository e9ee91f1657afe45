import type { KernelContext } from '../context.ts';
import type { KeyValueStore } from '../kv/types.ts';

const LOCAL_ENTRIES = 1000;

/**
 * Serialised answers of a read-mostly list, per entity, invalidated by a generation counter:
 * every write of the collection bumps the entity's generation, so no stale page is ever served
 * after the write returns (keys of older generations simply expire). The counter and the pages
 * live in the kernel's cache store (Redis db /0 when configured, which every node shares);
 * each node also keeps the encoded bytes of recent pages, valid only for the generation they
 * were built under, so a hit costs one counter read and no re-encoding.
 * Without Redis the store is per process, so a cluster without REDIS_URL does not cache at all.
 */
export class CollectionCache {
  private readonly enabled: boolean;
  private readonly ttlMs: number;
  private readonly local = new Map<string, Buffer>();

  constructor(private readonly store: KeyValueStore, private readonly name: string, opts: { enabled: boolean; ttlMs?: number }) {
    this.enabled = opts.enabled;
    this.ttlMs = opts.ttlMs ?? 60_000;
  }

  /** The cache a node should use: on unless several nodes would each keep their own copy. */
  static for(kernel: KernelContext, name: string): CollectionCache {
    const shared = kernel.cache.driver === 'redis' || !kernel.config.env.TRANSPORTER;
    return new CollectionCache(kernel.cache, name, { enabled: shared });
  }

  /** The cached body for this query, or what `build` makes (then stored for the next caller). */
  async read(entityId: string, query: unknown, build: () => Promise<string>): Promise<Buffer> {
    if (!this.enabled) return Buffer.from(await build());
    const generation = (await this.store.get(this.generationKey(entityId))) ?? '0';
    const key = `cache:${this.name}:${entityId}:${generation}:${JSON.stringify(query)}`;
    const bytes = this.local.get(key);
    if (bytes) return bytes;
    const shared = await this.store.get(key);
    const body = shared ?? (await build());
    // a write that raced with build() bumped the generation: the page is stored under the old one
    if (shared === null) await this.store.set(key, body, { ttlMs: this.ttlMs });
    return this.remember(key, Buffer.from(body));
  }

  /** Call after every committed write of the collection. */
  async invalidate(entityId: string): Promise<void> {
    if (this.enabled) await this.store.incr(this.generationKey(entityId), { ttlMs: 24 * 3600_000 });
  }

  private remember(key: string, bytes: Buffer): Buffer {
    if (this.local.size >= LOCAL_ENTRIES) this.local.delete(this.local.keys().next().value!);
    this.local.set(key, bytes);
    return bytes;
  }

  private generationKey(entityId: string): string {
    return `cache:${this.name}:gen:${entityId}`;
  }
}
