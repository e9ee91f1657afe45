export type { PooledSql as Sql } from '../../../kernel/db/pooled-sql.ts';
export { pooledSql as sqlOn } from '../../../kernel/db/pooled-sql.ts';

/** an escaped NUL in JSON text whose backslash is not itself escaped */
const ESCAPED_NUL = /(?<!\\)((?:\\\\)*)\\u0000/g;

/**
 * JSON for a jsonb parameter ($n::jsonb); undefined becomes SQL NULL. jsonb cannot hold U+0000,
 * which a node's output may carry (an http response, say): it is stored as U+FFFD instead of
 * failing the commit (request input with a NUL is refused at the gateway).
 */
export function json(value: unknown): string | null {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text.includes('\\u0000') ? text.replace(ESCAPED_NUL, '$1\\ufffd') : text;
}
