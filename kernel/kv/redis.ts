import type { Redis } from 'ioredis';
import { RedisConnection } from './redis-connection.ts';
import { normaliseTtlMs } from './ttl.ts';
import type { KeyValueSetOptions, KeyValueStore } from './types.ts';

export interface RedisKeyValueStoreOptions {
  /** redis:// or rediss:// URL, database included (see deriveRedisUrls). */
  url: string;
  /** Prepended to every key, e.g. to isolate a test file or a subsystem. */
  keyPrefix?: string;
  /** Bound on one connection attempt (default 5000 ms). */
  connectTimeoutMs?: number;
  onError?: (error: Error) => void;
}

/** KeyValueStore on Redis. Connects on first use; while Redis is down calls reject instead of hanging. */
export class RedisKeyValueStore implements KeyValueStore {
  readonly driver = 'redis' as const;
  private readonly connection: RedisConnection;
  private closed = false;

  constructor(opts: RedisKeyValueStoreOptions) {
    this.connection = new RedisConnection(opts.url, {
      keyPrefix: opts.keyPrefix,
      connectTimeoutMs: opts.connectTimeoutMs,
      onError: opts.onError,
    });
  }

  async get(key: string): Promise<string | null> {
    return this.run('GET', (redis) => redis.get(key));
  }

  async set(key: string, value: string, opts: KeyValueSetOptions = {}): Promise<void> {
    const ttlMs = normaliseTtlMs(opts.ttlMs);
    await this.run('SET', (redis) => (ttlMs === undefined ? redis.set(key, value) : redis.set(key, value, 'PX', ttlMs)));
  }

  async del(key: string): Promise<void> {
    await this.run('DEL', (redis) => redis.del(key));
  }

  async incr(key: string, opts: KeyValueSetOptions = {}): Promise<number> {
    const ttlMs = normaliseTtlMs(opts.ttlMs);
    if (ttlMs === undefined) return this.run('INCR', (redis) => redis.incr(key));
    // SET NX + INCR in one transaction: the expiry is set atomically with the
    // key's creation, so a crash between the two can never leave a counter
    // that lives forever (which would lock a rate-limit key for good).
    return this.run('INCR', async (redis) => {
      const replies = await redis.multi().set(key, '0', 'PX', ttlMs, 'NX').incr(key).exec();
      if (!replies) throw new Error('transaction aborted');
      const [, incrReply] = replies;
      if (incrReply?.[0]) throw incrReply[0];
      return Number(incrReply?.[1]);
    });
  }

  async ttlMs(key: string): Promise<number | null> {
    return this.run('PTTL', async (redis) => {
      const remaining = await redis.pttl(key);
      return remaining < 0 ? null : remaining;
    });
  }

  async ping(): Promise<void> {
    await this.run('PING', (redis) => redis.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.close();
  }

  private run<T>(operation: string, call: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`Redis ${operation} failed at ${this.connection.target}: store is closed`));
    return this.connection.run(operation, call);
  }
}
