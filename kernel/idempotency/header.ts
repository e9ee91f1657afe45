import { ERRORS } from '../errors/catalogue.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** the longest key kept (the column's width) */
export const MAX_KEY_LENGTH = 255;

/** a Structured Field String (RFC 8941 §3.3.3): printable ASCII in quotes, `\` escaping `"` and `\` */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
/** the bare form many clients send (Stripe's): visible ASCII, no quotes, no spaces */
const BARE_TOKEN = /^[\x21\x23-\x7e]+$/;

/**
 * The key of an `Idempotency-Key` header (IETF HTTPAPI draft: an sf-string, such as
 * `"8e03978e-40d5-43e8-bc93-6894a57f9324"`; a bare token is accepted too), undefined when the
 * request has none. A malformed or repeated header is a 400 naming it.
 */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw invalid('send one Idempotency-Key header, not several');
  const value = header.trim();
  const quoted = SF_STRING.exec(value);
  const key = quoted ? quoted[1].replace(/\\(["\\])/g, '$1') : BARE_TOKEN.test(value) ? value : undefined;
  if (key === undefined) throw invalid('the Idempotency-Key header must be a quoted string of printable ASCII, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324"');
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw invalid(`the Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters long`);
  return key;
}

function invalid(detail: string) {
  return ERRORS.IDEMPOTENCY_KEY_INVALID(detail, { errors: [{ field: IDEMPOTENCY_HEADER, message: detail, type: 'header' }] });
}
