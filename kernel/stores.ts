import { join, resolve } from 'node:path';
import type { Sequelize } from 'sequelize';
import type { Config } from '../config/load.ts';
import { connectDatabase, hasVector } from './db/connect.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { createKeyValueStore, deriveRedisUrls, type KeyValueStore } from './kv/index.ts';
import { createJobQueue, type JobQueue } from './queue/index.ts';
import { createObjectStore, type ObjectStore } from './objects/index.ts';
import type { HealthMonitor } from './health/monitor.ts';

export interface Stores {
  db: Sequelize;
  hasVector: boolean;
  cache: KeyValueStore;
  queue: JobQueue;
  objects: ObjectStore;
  close(): Promise<void>;
}

/**
 * Opens the node's stores: PostgreSQL (or embedded PGlite), Redis db /0 (or memory) for cache
 * and rate limits, the job queue on Redis db /2 (or in-process), and the object store; and
 * registers each with the deep health check.
 */
export async function openStores(config: Config, health: HealthMonitor, log: (msg: string) => void): Promise<Stores> {
  const env = config.env;
  const closers: (() => Promise<void>)[] = [];
  try {
    let url = env.DATABASE_URL;
    if (!url) {
      const dataDir = resolve(env.DATA_DIR, 'pg');
      log(`DATABASE_URL is not set: starting embedded PostgreSQL (PGlite) in ${dataDir}`);
      // the pool needs a connection of its own for migrations' advisory lock, plus headroom
      const embedded = await startEmbeddedPostgres({ dataDir, maxConnections: Math.max(32, env.DATABASE_POOL_MAX + 4) });
      closers.unshift(() => embedded.close());
      url = embedded.url;
    }
    const db = await connectDatabase({ url, pool: { max: env.DATABASE_POOL_MAX } });
    closers.unshift(() => db.close());
    const vector = await hasVector(db);

    const redis = env.REDIS_URL ? deriveRedisUrls(env.REDIS_URL) : undefined;
    const cache = createKeyValueStore({ url: redis?.cache, keyPrefix: `${env.NAMESPACE}:` });
    closers.unshift(() => cache.close());
    const queue = createJobQueue({ redisUrl: env.REDIS_URL || undefined, prefix: `${env.NAMESPACE}:bull` });
    closers.unshift(() => queue.close());
    const objects =
      env.STORAGE_DRIVER === 's3'
        ? createObjectStore({ driver: 's3', s3: { endpoint: env.S3_ENDPOINT || undefined, region: env.S3_REGION, bucket: env.S3_BUCKET, createBucket: env.S3_CREATE_BUCKET, accessKeyId: env.S3_ACCESS_KEY_ID || undefined, secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined } })
        : createObjectStore({ driver: 'local', dir: join(resolve(env.DATA_DIR), 'objects') });
    closers.unshift(() => objects.close());

    health.register('database', async () => {
      await db.query('SELECT 1');
      return { driver: env.DATABASE_URL ? 'postgres' : 'pglite', vector };
    });
    health.register('cache', async () => {
      const key = `health:${process.pid}:${Date.now()}`;
      await cache.set(key, 'ok', { ttlMs: 10_000 });
      if ((await cache.get(key)) !== 'ok') throw new Error('value written was not read back');
      await cache.del(key);
      return { driver: env.REDIS_URL ? 'redis' : 'memory' };
    });
    health.register('queue', async () => {
      await queue.check();
      return { driver: queue.driver };
    });
    health.register('objects', async () => {
      await objects.check();
      return { driver: objects.driver };
    });

    return {
      db, hasVector: vector, cache, queue, objects,
      async close() {
        for (const close of closers) await close().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => undefined);
    throw err;
  }
}
