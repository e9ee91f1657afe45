import type { Sequelize } from 'sequelize';

/**
 * Serialises migration runs of one package.
 *
 * Across processes: a session-level advisory lock on (namespace, hashtext(package))
 * held on one dedicated pool connection for the whole run; the migrations
 * themselves run on other connections, so the pool needs at least two. A
 * waiting node polls pg_try_advisory_lock instead of blocking in
 * pg_advisory_lock: a statement blocked that way holds a snapshot, and the
 * running node's CREATE INDEX CONCURRENTLY would wait for it forever (a
 * deadlock through the application that PostgreSQL cannot detect).
 * Within a process: a promise chain per database and package, which also
 * covers embedded PGlite, where every connection shares one backend session
 * and advisory locks therefore never block one another.
 */

/** First key of the two-key advisory lock, reserved for kernel migrations ('kmig'). */
export const MIGRATION_LOCK_NAMESPACE = 0x6b6d6967;

/** The slice of a pg Client used here (pg ships no TypeScript types in this project). */
interface RawPgConnection {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

const LOCK_POLL_INTERVAL_MS = 200;

/** Told each time the lock was found taken by another node (1, 2, ...). */
export type LockBusyListener = (attempts: number) => void;

const runsInProcess = new Map<string, Promise<unknown>>();

export async function withMigrationLock<T>(
  sequelize: Sequelize,
  packageName: string,
  run: () => Promise<T>,
  onBusy?: LockBusyListener,
): Promise<T> {
  assertPoolAllowsTwoConnections(sequelize);
  const { host, port, database } = sequelize.config;
  const key = JSON.stringify([host, port, database, packageName]);
  const previous = runsInProcess.get(key) ?? Promise.resolve();
  const current = previous.catch(() => {}).then(() => withAdvisoryLock(sequelize, packageName, run, onBusy));
  runsInProcess.set(key, current);
  try {
    return await current;
  } finally {
    if (runsInProcess.get(key) === current) runsInProcess.delete(key);
  }
}

async function withAdvisoryLock<T>(
  sequelize: Sequelize,
  packageName: string,
  run: () => Promise<T>,
  onBusy?: LockBusyListener,
): Promise<T> {
  const connection = (await sequelize.connectionManager.getConnection({ type: 'write' })) as RawPgConnection;
  let lockHeld = false;
  try {
    for (let attempts = 1; !(await tryLock(connection, packageName)); attempts++) {
      onBusy?.(attempts);
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_INTERVAL_MS));
    }
    lockHeld = true;
    return await run();
  } finally {
    if (lockHeld) await releaseAdvisoryLock(sequelize, connection, packageName);
    else sequelize.connectionManager.releaseConnection(connection);
  }
}

async function tryLock(connection: RawPgConnection, packageName: string): Promise<boolean> {
  const result = (await connection.query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [
    MIGRATION_LOCK_NAMESPACE,
    packageName,
  ])) as { rows: Array<{ locked: boolean }> };
  return result.rows[0]?.locked === true;
}

async function releaseAdvisoryLock(sequelize: Sequelize, connection: RawPgConnection, packageName: string): Promise<void> {
  try {
    await connection.query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK_NAMESPACE, packageName]);
    sequelize.connectionManager.releaseConnection(connection);
  } catch {
    // The lock dies with its session: drop the connection instead of reusing it.
    await sequelize.connectionManager.destroyConnection(connection).catch(() => {});
  }
}

function assertPoolAllowsTwoConnections(sequelize: Sequelize): void {
  const max = sequelize.config.pool?.max;
  if (max !== undefined && max < 2) {
    throw new Error(
      `Migrations need a connection pool of at least 2 (one holds the migration lock), but pool.max is ${max}`,
    );
  }
}
