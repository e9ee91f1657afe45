import { isPlainObject } from '../plain-object.ts';

/** Keys whose values are secrets wherever they appear: passwords, tokens, API keys, cookies... */
export const SECRET_KEY = /pass(word|phrase)?|secret|token|api[-_]?key|authorization|cookie|credential|private[-_]?key|signature/i;
export const REDACTED = '[redacted]';

/** Token counts (`input_tokens`, `output_tokens`...) are usage figures, not credentials. */
const TOKEN_COUNT = /^(?:[a-z]+_)*tokens$/i;

/** Whether the value under `key` is a secret to hide: a secret-looking key, unless it names a count. */
export function isSecretEntry(key: string, value: unknown): boolean {
  return SECRET_KEY.test(key) && !(typeof value === 'number' && TOKEN_COUNT.test(key));
}

/**
 * A copy of `value` fit to leave the process (a trace span, say): every value under a
 * secret-looking key, at any depth, is replaced, and what is not plain data (a request or
 * response object, a stream) is left out.
 */
export function redactSecretKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecretKeys);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (isSecretEntry(key, item)) out[key] = REDACTED;
      else if (item === null || typeof item !== 'object' || Array.isArray(item) || isPlainObject(item)) out[key] = redactSecretKeys(item);
    }
    return out;
  }
  return value;
}
