import { randomInt } from 'node:crypto';
import type { Sequelize } from 'sequelize';

/**
 * Process presence: whether another process using the same database is still alive, known
 * for sure and at once, not after a lease runs out. Each process holds a session-level
 * advisory lock (class PRESENCE_LOCK_CLASS, a random key) on a connection of its own, kept
 * open for the life of the process. The database releases the lock the moment that session
 * ends: a process killed with SIGKILL closes its socket, and the lock is gone before it could
 * have renewed anything. A key absent from LIVE_PRESENCE_KEYS_SQL therefore belongs to a dead
 * process (or to one cut off from the database, which can commit nothing either).
 *
 * On embedded PGlite every connection shares one session: the lock lives as long as the
 * PGlite instance, i.e. the process, and a restart starts with no locks at all.
 *
 * One presence per process and database: every package of a node shares it (takePresence).
 */

/** advisory lock class (first key) of presence locks: 'WAOP' */
export const PRESENCE_LOCK_CLASS = 0x57414f50;

/**
 * The keys of the presence locks held now in this database, one per live process; a
 * statement uses it as a CTE (`WITH live AS MATERIALIZED (...)`) so pg_locks is read once.
 */
export const LIVE_PRESENCE_KEYS_SQL = `SELECT l.objid::int8 AS key FROM pg_locks l
  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid::int8 = ${PRESENCE_LOCK_CLASS}
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 5000];

type Logger = { warn(msg: string): void; error(msg: string): void };

/** the few members of a `pg` Client used here */
interface PgClient {
  connect(): Promise<void>;
  query<R>(text: string, values: unknown[]): Promise<{ rows: R[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
  once(event: 'end', listener: () => void): unknown;
  removeAllListeners(event: 'end'): unknown;
}
type PgClientClass = new (config: Record<string, unknown>) => PgClient;

export interface Presence {
  /** this process's presence key (positive int32) */
  readonly key: number;
  /** Lets go of this holder's share; the last one closes the connection (the lock goes with it). */
  release(): Promise<void>;
}

class PresenceLock {
  private client?: PgClient;
  closed = false;
  holders = 0;

  private constructor(
    private readonly db: Sequelize,
    readonly key: number,
    private readonly logger: Logger,
  ) {}

  /** Opens a connection and takes a free key (another process may, by chance, hold the first pick). */
  static async take(db: Sequelize, logger: Logger): Promise<PresenceLock> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const lock = new PresenceLock(db, randomInt(1, 2 ** 31 - 1), logger);
      if (await lock.lock()) return lock;
    }
    throw new Error('could not take a free process presence key in 5 attempts');
  }

  /** Connects and tries the lock; true when held. */
  private async lock(): Promise<boolean> {
    // the pg module sequelize itself loaded for its pool
    const Client = (this.db.connectionManager as unknown as { lib: { Client: PgClientClass } }).lib.Client;
    const client = new Client(connectionConfigOf(this.db));
    client.on('error', () => undefined); // the 'end' handler below takes over
    await client.connect();
    const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS held', [PRESENCE_LOCK_CLASS, this.key]);
    if (!rows[0]?.held) {
      await client.end().catch(() => undefined);
      return false;
    }
    this.client = client;
    client.once('end', () => void this.reconnect());
    return true;
  }

  /**
   * The session ended under a live process (database restart, network cut): take the same key
   * again. Until then this process reads as dead to others, and its leases may be taken over;
   * its commits, guarded by its leases, then land nowhere.
   */
  private async reconnect(): Promise<void> {
    this.client = undefined;
    this.logger.warn(`process presence connection lost; taking presence key ${this.key} again`);
    for (let i = 0; !this.closed; i++) {
      await new Promise((r) => setTimeout(r, RECONNECT_DELAYS_MS[Math.min(i, RECONNECT_DELAYS_MS.length - 1)]).unref());
      if (this.closed) return;
      try {
        if (await this.lock()) return;
        this.logger.error(`process presence key ${this.key} is held by another session; this process reads as dead to others`);
        return;
      } catch {
        // still unreachable: try again
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}

/** pg connection settings of the shared Sequelize instance (the same server, user and TLS). */
function connectionConfigOf(db: Sequelize): Record<string, unknown> {
  const c = db.config as { username?: string; password?: string; host?: string; port?: number | string; database?: string };
  const dialect = ((db as unknown as { options: { dialectOptions?: Record<string, unknown> } }).options.dialectOptions ?? {});
  return {
    user: c.username,
    password: c.password ?? undefined,
    host: c.host,
    port: c.port === undefined ? undefined : Number(c.port),
    database: c.database,
    ssl: dialect.ssl,
    connectionTimeoutMillis: dialect.connectionTimeoutMillis,
    keepAlive: true,
    application_name: 'wao-presence',
  };
}

const locks = new WeakMap<Sequelize, Promise<PresenceLock>>();

/** This process's presence on `db`, taken on first use and shared by every caller. */
export async function takePresence(db: Sequelize, logger: Logger): Promise<Presence> {
  let pending = locks.get(db);
  if (!pending) {
    pending = PresenceLock.take(db, logger);
    locks.set(db, pending);
    pending.catch(() => locks.delete(db));
  }
  const lock = await pending;
  // the last holder let go while this caller waited: take a new one
  if (lock.closed) return takePresence(db, logger);
  lock.holders += 1;
  let released = false;
  return {
    key: lock.key,
    async release() {
      if (released) return;
      released = true;
      lock.holders -= 1;
      if (lock.holders > 0) return;
      if (locks.get(db) === pending) locks.delete(db);
      await lock.close();
    },
  };
}
