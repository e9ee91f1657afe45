import type { IncomingMessage } from 'node:http';
import { ERRORS } from '../errors/catalogue.ts';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The request's media type, lower case, without parameters ('' when none is given). */
export function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** The media types parsed as JSON bodies, as body-parser takes them (its default is application/json only). */
export const JSON_BODY_TYPES = ['application/json', 'application/*+json'];

/** application/json or a +json type (application/vnd.api+json, ...): JSON_BODY_TYPES. */
export function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(mediaType);
}

/** true when the request says it carries a body (a length above zero, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * 415 unless a request body is in a media type the action accepts: JSON by default,
 * `multipart/form-data` for upload routes, more when the action lists them in `accepts`.
 */
export function assertAcceptedMediaType(req: IncomingMessage, accepts: string[]): void {
  if (!BODY_METHODS.has(req.method ?? '') || !hasBody(req)) return;
  const type = mediaTypeOf(req);
  const ok = accepts.some((a) => a === type || (a === 'application/json' && isJson(type)));
  if (!ok) {
    throw ERRORS.UNSUPPORTED_MEDIA_TYPE(`Content-Type '${type || '(none)'}' is not accepted here; send ${accepts.join(' or ')}`, { accepted: accepts });
  }
}
