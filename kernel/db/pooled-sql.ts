import { createHash } from 'node:crypto';
import type { Sequelize } from 'sequelize';

/**
 * Raw SQL with positional parameters ($1, $2, ...) on a connection of the shared pool, for hot
 * paths where sequelize's query layer costs more than the statement (a workflow run's commits,
 * an Idempotency-Key's claim). Callers name `entity_id` in every query of a tenant-owned table
 * themselves: these are raw statements, not scoped models. Statements given a `name` are
 * prepared once per connection, on a real PostgreSQL only: embedded PGlite runs every connection
 * in ONE session, where a name prepared by one connection already exists for the next
 * ("prepared statement already exists").
 */
export interface PooledSql {
  rows<T>(text: string, params?: unknown[], name?: string): Promise<T[]>;
  one<T>(text: string, params?: unknown[], name?: string): Promise<T | undefined>;
  /** runs a statement and returns how many rows it changed */
  exec(text: string, params?: unknown[], name?: string): Promise<number>;
}

type PgConnection = { query(q: { text: string; values: unknown[]; name?: string }): Promise<{ rows: unknown[]; rowCount: number | null }> };

type Pool = { acquire(): Promise<PgConnection>; release(c: PgConnection): void; destroy(c: PgConnection): Promise<void> };

export function pooledSql(db: Sequelize, opts: { namedStatements: boolean }): PooledSql {
  const manager = db.connectionManager as unknown as {
    pool?: Partial<Pool>;
    getConnection(opts: { type: 'write' }): Promise<PgConnection>;
    releaseConnection(c: PgConnection): void;
    destroyConnection(c: PgConnection): Promise<void>;
  };
  // The shared pool itself (sequelize-pool), without the hooks sequelize runs around each
  // acquire: that wrapper cost about a third of a short statement's CPU here. Same connections,
  // same limits; a replicated setup (no plain pool) goes through getConnection.
  const pool = manager.pool;
  const direct = typeof pool?.acquire === 'function' && typeof pool.release === 'function' && typeof pool.destroy === 'function';
  const acquire = direct ? () => pool.acquire!() : () => manager.getConnection({ type: 'write' });
  const release = direct ? (c: PgConnection) => pool.release!(c) : (c: PgConnection) => manager.releaseConnection(c);
  const destroy = direct ? (c: PgConnection) => pool.destroy!(c) : (c: PgConnection) => manager.destroyConnection(c);
  const run = async (text: string, values: unknown[], name?: string) => {
    const connection = await acquire();
    try {
      const result = await connection.query(name && opts.namedStatements ? { text, values, name } : { text, values });
      release(connection);
      return result;
    } catch (err) {
      // a broken connection must not go back to the pool; a statement error leaves it usable
      if ((err as { code?: string }).code === undefined) await destroy(connection).catch(() => undefined);
      else release(connection);
      throw err;
    }
  };
  return {
    async rows<T>(text: string, params: unknown[] = [], name?: string): Promise<T[]> {
      return (await run(text, params, name)).rows as T[];
    },
    async one<T>(text: string, params: unknown[] = [], name?: string): Promise<T | undefined> {
      return (await run(text, params, name)).rows[0] as T | undefined;
    },
    async exec(text: string, params: unknown[] = [], name?: string): Promise<number> {
      return (await run(text, params, name)).rowCount ?? 0;
    },
  };
}

/**
 * Pooled SQL on whatever database `current` names, made again if that changes (a service
 * created before the kernel connects reads the database late).
 */
export function lazyPooledSql(current: () => { db: Sequelize; embedded: boolean }): () => PooledSql {
  let made: { db: Sequelize; sql: PooledSql } | undefined;
  return () => {
    const { db, embedded } = current();
    if (made?.db !== db) made = { db, sql: pooledSql(db, { namedStatements: !embedded }) };
    return made.sql;
  };
}

/** A prepared statement's name for SQL built at run time: the same text, the same name. */
export function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
}
