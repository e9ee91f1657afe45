import type { IncomingMessage } from 'node:http';
import { ERRORS } from '../errors/catalogue.ts';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * 415 unless a request body is in a media type the action accepts: JSON by default,
 * `multipart/form-data` for upload routes, more when the action lists them in `accepts`.
 */
export function assertAcceptedMediaType(req: IncomingMessage, accepts: string[]): void {
  if (!BODY_METHODS.has(req.method ?? '') || !hasBody(req)) return;
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const ok = accepts.some((a) => a === type || (a === 'application/json' && /^application\/[a-z0-9.+-]*\+json$/.test(type)));
  if (!ok) {
    throw ERRORS.UNSUPPORTED_MEDIA_TYPE(`Content-Type '${type || '(none)'}' is not accepted here; send ${accepts.join(' or ')}`, { accepted: accepts });
  }
}
