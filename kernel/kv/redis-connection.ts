import { Redis, type RedisOptions } from 'ioredis';
import { assertRedisUrl, redactRedisUrl } from './redis-url.ts';

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** A command waits for at most this many reconnections before it rejects. */
const MAX_RETRIES_PER_REQUEST = 1;

export interface RedisConnectionOptions {
  /** Give up on one connection attempt after this long (default 5000). */
  connectTimeoutMs?: number;
  /** ioredis keyPrefix: prepended to every key this connection touches. */
  keyPrefix?: string;
  /**
   * A blocking or subscriber connection (bull's `bclient`/`subscriber`): it
   * may wait forever for a reply, so it must not limit retries per request.
   */
  blocking?: boolean;
  /** Called with every connection error (they also surface on the failing calls). */
  onError?: (error: Error) => void;
}

/**
 * One ioredis client that fails fast while Redis is down: a command waits at
 * most `maxRetriesPerRequest + 1` bounded connection attempts, then rejects
 * with an error naming the server and the last connection failure.
 */
export class RedisConnection {
  readonly client: Redis;
  /** The URL with the password masked. */
  readonly target: string;
  private lastConnectionError: Error | null = null;

  constructor(url: string, opts: RedisConnectionOptions = {}) {
    assertRedisUrl(url);
    this.target = redactRedisUrl(url);
    this.client = new Redis(url, buildOptions(opts));
    this.client.on('error', (error: Error) => {
      this.lastConnectionError = error;
      opts.onError?.(error);
    });
    this.client.on('ready', () => {
      this.lastConnectionError = null;
    });
  }

  /** Wraps a failed call's error so the message says what, where and why. */
  failure(operation: string, error: unknown): Error {
    const message = error instanceof Error ? error.message : String(error);
    const connection = this.lastConnectionError;
    let reason: string;
    if (error instanceof Error && error.name === 'MaxRetriesPerRequestError') {
      reason = `cannot connect (${connection?.message ?? 'no connection'})`;
    } else {
      reason = connection && connection.message !== message ? `${message} (last connection error: ${connection.message})` : message;
    }
    return new Error(`Redis ${operation} failed at ${this.target}: ${reason}`, { cause: error });
  }

  async run<T>(operation: string, call: (client: Redis) => Promise<T>): Promise<T> {
    try {
      return await call(this.client);
    } catch (error) {
      throw this.failure(operation, error);
    }
  }

  /** Sends QUIT when connected so pending replies arrive; otherwise just stops reconnecting. */
  async close(): Promise<void> {
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // Connection dropped while quitting: fall through to a hard disconnect.
      }
    }
    this.client.disconnect();
  }
}

function buildOptions(opts: RedisConnectionOptions): RedisOptions {
  const connectTimeout = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const common: RedisOptions = {
    connectTimeout,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
  };
  if (opts.blocking) {
    return { ...common, maxRetriesPerRequest: null, enableReadyCheck: false };
  }
  return {
    ...common,
    lazyConnect: true,
    maxRetriesPerRequest: MAX_RETRIES_PER_REQUEST,
    ...(opts.keyPrefix ? { keyPrefix: opts.keyPrefix } : {}),
  };
}
