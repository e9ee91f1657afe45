import { QueryTypes, Sequelize } from 'sequelize';

export interface ConnectDatabaseOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  logging?: (sql: string) => void;
  pool?: { max?: number };
  /** How long opening one connection may take; default 10 s. */
  connectTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_POOL_MAX = 10;

/**
 * Opens the shared Sequelize instance (PostgreSQL dialect, UTC) and proves
 * the server answers with `SELECT 1` before returning it.
 */
export async function connectDatabase(options: ConnectDatabaseOptions): Promise<Sequelize> {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const sequelize = new Sequelize(options.url, {
    dialect: 'postgres',
    timezone: 'UTC',
    logging: options.logging ? (sql: string) => options.logging?.(sql) : false,
    pool: {
      max: options.pool?.max ?? DEFAULT_POOL_MAX,
      min: 0,
      acquire: connectTimeoutMs * 3,
      idle: 10_000,
    },
    dialectOptions: { connectionTimeoutMillis: connectTimeoutMs },
  });
  try {
    await sequelize.query('SELECT 1', { type: QueryTypes.SELECT });
  } catch (error) {
    await sequelize.close().catch(() => {});
    throw new Error(`Cannot connect to PostgreSQL at ${redactUrl(options.url)}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return sequelize;
}

/**
 * Whether the `vector` extension (pgvector) is installed, installing it if
 * the server offers it. Returns false, without throwing, on a server that
 * lacks it or a role that may not create it.
 */
export async function hasVector(sequelize: Sequelize): Promise<boolean> {
  if (await isVectorInstalled(sequelize)) return true;
  const available = await sequelize.query<{ name: string }>(
    "SELECT name FROM pg_available_extensions WHERE name = 'vector'",
    { type: QueryTypes.SELECT },
  );
  if (available.length === 0) return false;
  try {
    await sequelize.query('CREATE EXTENSION IF NOT EXISTS vector');
  } catch {
    // A concurrent CREATE EXTENSION may have won the race; look again.
    return isVectorInstalled(sequelize);
  }
  return true;
}

async function isVectorInstalled(sequelize: Sequelize): Promise<boolean> {
  const rows = await sequelize.query<{ extname: string }>(
    "SELECT extname FROM pg_extension WHERE extname = 'vector'",
    { type: QueryTypes.SELECT },
  );
  return rows.length > 0;
}

/** The URL with its password masked, for error messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable database URL)';
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
