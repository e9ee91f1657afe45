/** One connection URL per logical Redis database (spec: one store, four databases). */
export interface RedisUrls {
  /** `/0`: application cache, rate limits, presence. */
  cache: string;
  /** `/1`: entity-filesystem metadata. */
  fs: string;
  /** `/2`: background-job broker (bull queues `celery` and `work`). */
  jobs: string;
  /** `/3`: background-job result backend. */
  results: string;
}

const REDIS_PROTOCOLS = new Set(['redis:', 'rediss:']);

function parseRedisUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`Invalid Redis URL '${redactRedisUrl(url)}': expected redis://[user:pass@]host:port[/db]`);
  }
  if (!REDIS_PROTOCOLS.has(parsed.protocol)) {
    throw new Error(`Invalid Redis URL '${redactRedisUrl(url)}': protocol must be redis:// or rediss://, got ${parsed.protocol}//`);
  }
  if (parsed.hostname === '') {
    throw new Error(`Invalid Redis URL '${redactRedisUrl(url)}': a host is required`);
  }
  return parsed;
}

/** Throws a clear Error unless url is a redis:// or rediss:// URL with a host. */
export function assertRedisUrl(url: string): void {
  parseRedisUrl(url);
}

function withDatabase(url: URL, db: number): string {
  const copy = new URL(url.href);
  copy.pathname = `/${db}`;
  copy.hash = '';
  return copy.href;
}

/**
 * Derives the four logical-database URLs from one Redis URL. Any database in
 * the given URL is ignored; auth, host, port and query are kept.
 */
export function deriveRedisUrls(url: string): RedisUrls {
  const parsed = parseRedisUrl(url);
  return {
    cache: withDatabase(parsed, 0),
    fs: withDatabase(parsed, 1),
    jobs: withDatabase(parsed, 2),
    results: withDatabase(parsed, 3),
  };
}

/** The URL with its password masked, for error messages and logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    // Not parseable: mask anything between "://user:" and "@" by hand.
    return url.replace(/(\/\/[^:@/]*:)[^@/]*@/, '$1***@');
  }
}
