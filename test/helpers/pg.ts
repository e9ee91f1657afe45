import { randomBytes } from 'node:crypto';
import { QueryTypes, Sequelize } from 'sequelize';
import { redactUrl } from '../../kernel/db/connect.ts';

/**
 * A fresh, uniquely named database on the machine's PostgreSQL for one test
 * file, dropped afterwards. Admin connection: TEST_DATABASE_ADMIN_URL, else
 * postgres://postgres@127.0.0.1:5432/postgres. Fails (never skips) when the
 * server is down.
 *
 *   const db = await createTestDatabase('tasks');
 *   test.after.always(() => db.drop());
 */

export interface TestDatabase {
  /** Connection URL of the new database. */
  url: string;
  /** Name of the new database. */
  name: string;
  /** Terminates its connections and drops it; safe to call more than once. */
  drop(): Promise<void>;
}

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const MAX_IDENTIFIER_LENGTH = 63;

export function testDatabaseAdminUrl(): string {
  return process.env.TEST_DATABASE_ADMIN_URL || DEFAULT_ADMIN_URL;
}

export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const adminUrl = testDatabaseAdminUrl();
  const name = uniqueDatabaseName(label);
  await withAdminConnection(adminUrl, async (admin) => {
    if (isLoopback(adminUrl)) await dropOrphanedTestDatabases(admin);
    await createDatabase(admin, name);
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    name,
    async drop(): Promise<void> {
      if (dropped) return;
      await withAdminConnection(adminUrl, async (admin) => {
        // WITH (FORCE) terminates the remaining sessions (PostgreSQL 13+).
        await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
      });
      dropped = true;
    },
  };
}

const OBJECT_IN_USE = '55006'; // "source database template1 is being accessed by other users"
const CREATE_ATTEMPTS = 5;

async function createDatabase(admin: Sequelize, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      return;
    } catch (error) {
      const code = (error as { original?: { code?: unknown } }).original?.code;
      if (code !== OBJECT_IN_USE || attempt === CREATE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/**
 * A test run killed before its cleanup (a timeout, Ctrl-C) leaves databases
 * behind. Their names carry the creating process's pid; on a server on this
 * machine, a database whose process is gone is dropped at the next create.
 */
async function dropOrphanedTestDatabases(admin: Sequelize): Promise<void> {
  const rows = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'test\\_%'", {
    type: QueryTypes.SELECT,
  });
  for (const { datname } of rows) {
    const pid = TEST_DATABASE_NAME.exec(datname)?.[1];
    if (pid === undefined || isProcessAlive(Number(pid))) continue;
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(datname)} WITH (FORCE)`).catch(() => {});
  }
}

const TEST_DATABASE_NAME = /^test_.*_(\d+)_[0-9a-f]{8}$/;

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
}

function uniqueDatabaseName(label: string): string {
  const safeLabel = label.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'db';
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const room = MAX_IDENTIFIER_LENGTH - 'test__'.length - suffix.length;
  return `test_${safeLabel.slice(0, room)}_${suffix}`;
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function withAdminConnection(adminUrl: string, work: (admin: Sequelize) => Promise<void>): Promise<void> {
  const admin = new Sequelize(adminUrl, {
    dialect: 'postgres',
    logging: false,
    pool: { max: 1, min: 0 },
    dialectOptions: { connectionTimeoutMillis: 10_000 },
  });
  try {
    await work(admin);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Test database admin action on ${redactUrl(adminUrl)} failed: ${reason}`, { cause: error });
  } finally {
    await admin.close();
  }
}
