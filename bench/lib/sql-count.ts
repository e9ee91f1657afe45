/**
 * Preloaded into a bench kernel (`--import ./bench/lib/sql-count.ts`): counts the statements the
 * process sends through `pg`, by normalized text (literals replaced by `?`, so sequelize's inlined
 * values group together). On SIGUSR2 it writes the counts so far to BENCH_SQL_COUNT_FILE as JSON;
 * a bench signals before and after a phase and takes the difference (sqlCountsBetween).
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const counts = new Map<string, number>();

/** A statement's text with its literals (strings, numbers, IN lists) replaced by `?`. */
export function normalizeSql(text: string): string {
  return text
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/\b\d+(\.\d+)?\b/g, '?')
    .replace(/\((\s*\?\s*,)+\s*\?\s*\)/g, '(?...)')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}

function install(file: string): void {
  // the project's own pg (the one the kernel loads), not a copy beside this file
  const pg = createRequire(join(process.cwd(), 'package.json'))('pg') as { Client: { prototype: { query(config: unknown, ...rest: unknown[]): unknown } } };
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
    const text = typeof config === 'string' ? config : (config as { text?: string } | null)?.text;
    if (text) {
      const key = normalizeSql(text);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return original.call(this, config, ...rest);
  };
  process.on('SIGUSR2', () => writeFileSync(file, JSON.stringify(Object.fromEntries(counts))));
}

if (process.env.BENCH_SQL_COUNT_FILE) install(process.env.BENCH_SQL_COUNT_FILE);

/** The counts so far of a kernel started with this module and BENCH_SQL_COUNT_FILE = `file`. */
export async function readSqlCounts(pid: number, file: string): Promise<Record<string, number>> {
  const { readFileSync, rmSync } = await import('node:fs');
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 50));
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
    } catch {
      // not written (or not whole) yet
    }
  }
  throw new Error('the kernel did not write its SQL counts');
}

/** Statements per stream between two readings, most frequent first. */
export function sqlPerStream(before: Record<string, number>, after: Record<string, number>, streams: number): { total: number; statements: { sql: string; per_stream: number }[] } {
  const diff = Object.entries(after).map(([sql, n]) => ({ sql, per_stream: Math.round(((n - (before[sql] ?? 0)) / streams) * 100) / 100 })).filter((s) => s.per_stream > 0);
  diff.sort((a, b) => b.per_stream - a.per_stream);
  return { total: Math.round(diff.reduce((a, s) => a + s.per_stream, 0) * 100) / 100, statements: diff };
}
