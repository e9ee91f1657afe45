import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's X-Request-Id is kept when it is a short safe token; otherwise a new one is made. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE.test(given) ? given : randomUUID();
}
