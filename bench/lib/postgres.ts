import { execFileSync } from 'node:child_process';

/** A throw-away database on the machine's PostgreSQL (trust auth, user postgres). */
const PSQL_ARGS = ['-h', '127.0.0.1', '-U', 'postgres', '-v', 'ON_ERROR_STOP=1', '-q', '-c'];

function psql(sql: string): void {
  execFileSync('psql', [...PSQL_ARGS, sql], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
}

export function databaseUrl(name: string): string {
  return `postgres://postgres@127.0.0.1:5432/${name}`;
}

export function createDatabase(name: string): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe database name ${name}`);
  psql(`CREATE DATABASE ${name}`);
}

/** Drops it even if a connection is left open (PostgreSQL 13+ FORCE). Never throws. */
export function dropDatabase(name: string): void {
  try {
    psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } catch (err) {
    console.error(`warning: could not drop database ${name}: ${(err as Error).message}`);
  }
}

/** Process ids of the server backends connected to a database (its pool's connections). */
export function backendPids(database: string): number[] {
  const out = execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-At', '-c', `SELECT pid FROM pg_stat_activity WHERE datname = '${database.replace(/'/g, "''")}'`], { encoding: 'utf8', timeout: 30_000 });
  return out.split('\n').filter(Boolean).map(Number);
}
