import { createHash, timingSafeEqual } from 'node:crypto';

export type WorkerTokenCheck = 'ok' | 'disabled' | 'missing' | 'malformed' | 'wrong';

const BEARER = /^Bearer\s+(\S{1,1024})$/i;

/**
 * Checks an `Authorization` header against WORKER_TOKEN. The comparison runs in constant time
 * over SHA-256 digests, so neither the content nor the length of the token leaks through
 * timing. An empty WORKER_TOKEN disables external heartbeats altogether.
 */
export function checkWorkerToken(authorization: string | undefined, configured: string): WorkerTokenCheck {
  if (!configured) return 'disabled';
  if (!authorization) return 'missing';
  const match = BEARER.exec(authorization.trim());
  if (!match) return 'malformed';
  return timingSafeEqual(digest(match[1]), digest(configured)) ? 'ok' : 'wrong';
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
