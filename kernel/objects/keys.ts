// Key and metadata rules shared by both drivers, so an object that one driver
// accepts round-trips unchanged through the other. Violations are BAD_REQUEST
// kernel errors (plain Errors underneath), so a bad key taken from a request
// becomes a 400 rather than a 500.
import { ERRORS } from '../errors/catalogue.ts';

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

const MAX_KEY_BYTES = 1024; // S3's limit
const MAX_METADATA_BYTES = 2048; // S3's limit for user metadata (keys + values)
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const METADATA_KEY = /^[a-z0-9!#$%&'*+.^_`|~-]+$/; // HTTP token characters, lower-cased
const METADATA_VALUE = /^[\u0020-\u007e]*$/; // printable ASCII: S3 sends values as HTTP headers

function keyProblem(key: string): string | null {
  if (key.length === 0) return 'it is empty';
  if (key.startsWith('/')) return 'it is absolute (starts with "/")';
  if (key.includes('\u0000')) return 'it contains a NUL character';
  if (key.includes('\\')) return 'it contains a backslash';
  if (CONTROL_CHARS.test(key)) return 'it contains a control character';
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return `it is longer than ${MAX_KEY_BYTES} bytes`;
  for (const segment of key.split('/')) {
    if (segment === '..') return 'it contains a ".." segment';
    if (segment === '.') return 'it contains a "." segment';
    if (segment === '') return 'it contains an empty segment ("//" or a trailing "/")';
  }
  return null;
}

/** Throws an error naming `key` when it is not a valid object key. */
export function assertValidKey(key: unknown): asserts key is string {
  if (typeof key !== 'string') throw ERRORS.BAD_REQUEST(`Invalid object key ${String(key)}: it must be a string`);
  const problem = keyProblem(key);
  if (problem) throw ERRORS.BAD_REQUEST(`Invalid object key ${JSON.stringify(key)}: ${problem}`, { key });
}

/** A list prefix may be any string a key could start with, including '' and a trailing '/'. */
export function assertValidPrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string') throw ERRORS.BAD_REQUEST(`Invalid object key prefix ${String(prefix)}: it must be a string`);
  if (prefix.includes('\\') || CONTROL_CHARS.test(prefix)) {
    throw ERRORS.BAD_REQUEST(`Invalid object key prefix ${JSON.stringify(prefix)}: it contains a backslash or a control character`, {
      prefix,
    });
  }
}

/** Lower-cases keys and checks the S3 rules; throws an error naming the bad entry. */
export function normalizeMetadata(metadata: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  let bytes = 0;
  for (const [rawKey, value] of Object.entries(metadata ?? {})) {
    const key = rawKey.toLowerCase();
    if (!METADATA_KEY.test(key)) {
      throw ERRORS.BAD_REQUEST(
        `Invalid metadata key ${JSON.stringify(rawKey)}: use letters, digits and HTTP token characters such as "-" and "_"`,
        { metadata_key: rawKey },
      );
    }
    if (key in out) {
      throw ERRORS.BAD_REQUEST(`Duplicate metadata key ${JSON.stringify(rawKey)}: keys are case-insensitive`, { metadata_key: rawKey });
    }
    if (typeof value !== 'string' || !METADATA_VALUE.test(value) || value.trim() !== value) {
      throw ERRORS.BAD_REQUEST(
        `Invalid metadata value for ${JSON.stringify(rawKey)}: it must be printable ASCII without leading or trailing spaces`,
        { metadata_key: rawKey },
      );
    }
    bytes += key.length + value.length;
    out[key] = value;
  }
  if (bytes > MAX_METADATA_BYTES) throw ERRORS.BAD_REQUEST(`Metadata is ${bytes} bytes; at most ${MAX_METADATA_BYTES} are allowed`);
  return out;
}

export function normalizeContentType(contentType: string | undefined): string {
  if (contentType === undefined || contentType === '') return DEFAULT_CONTENT_TYPE;
  if (!METADATA_VALUE.test(contentType)) {
    throw ERRORS.BAD_REQUEST(`Invalid content type ${JSON.stringify(contentType)}: it must be printable ASCII`, { content_type: contentType });
  }
  return contentType;
}
