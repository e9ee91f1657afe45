import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { acquireDataDirLock } from './data-dir-lock.ts';
import { startPgliteWireServer } from './pglite-wire-server.ts';

/**
 * The embedded default database: PGlite (PostgreSQL compiled to WASM) with
 * pgvector, on a data directory, behind a local wire-protocol listener so
 * sequelize connects to it exactly as to a real server. The first start on
 * an empty directory runs initdb (seconds); later starts reopen it quickly.
 */

export interface EmbeddedPostgresOptions {
  dataDir: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Simultaneous client connections; keep the sequelize pool at or below it. */
  maxConnections?: number;
}

export interface EmbeddedPostgres {
  /** postgres://postgres@host:port/postgres */
  url: string;
  close(): Promise<void>;
}

export const EMBEDDED_DEFAULT_MAX_CONNECTIONS = 32;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const maxConnections = options.maxConnections ?? EMBEDDED_DEFAULT_MAX_CONNECTIONS;
  if (!Number.isInteger(maxConnections) || maxConnections < 1) {
    throw new Error(`maxConnections must be a positive integer, got ${String(options.maxConnections)}`);
  }
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const lock = acquireDataDirLock(dataDir);

  let db: PGlite | undefined;
  try {
    db = await PGlite.create({ dataDir, extensions: { vector } });
    await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
    const server = await startPgliteWireServer({
      db,
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      maxConnections,
    });
    const openDb = db;
    let closing: Promise<void> | undefined;
    return {
      url: `postgres://postgres@${urlHost(server.host)}:${server.port}/postgres`,
      close(): Promise<void> {
        closing ??= (async () => {
          try {
            await server.close();
            await openDb.close();
          } finally {
            lock.release();
          }
        })();
        return closing;
      },
    };
  } catch (error) {
    if (db && !db.closed) await db.close().catch(() => {});
    lock.release();
    throw new Error(`Could not start embedded PostgreSQL on ${dataDir}: ${messageOf(error)}`, { cause: error });
  }
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
