import { MODEL_PROVIDERS } from '../../kernel/models-contract.ts';

/** fastest-validator rules of a key's fields, shared by the routes. */
/** one line of text without control characters */
export const NAME_RULE = {
  type: 'string', trim: true, singleLine: true, min: 1, max: 120, pattern: '^[^\\x00-\\x1F\\x7F]+$',
  messages: { stringPattern: "The '{field}' field must not contain control characters." },
} as const;
export const PROVIDER_RULE = { type: 'enum', values: [...MODEL_PROVIDERS] } as const;
/** printable ASCII without spaces: what an HTTP header can carry (surrounding blanks of a pasted key are trimmed) */
export const API_KEY_RULE = { type: 'string', trim: true, min: 1, max: 4096, pattern: '^[\\x21-\\x7E]+$', description: 'The raw provider key; accepted here, never shown again.' } as const;
/** model names: `gpt-4o-mini`, `claude-sonnet-4-5`, `meta-llama/Llama-3-70b`, `llama3:8b` */
export const MODEL_RULE = { type: 'string', trim: true, min: 1, max: 200, pattern: '^[\\x21-\\x7E]+$' } as const;
export const IS_DEFAULT_RULE = { type: 'boolean' } as const;
export const KEY_ID_PARAM = { id: { type: 'string', min: 1, max: 64 } } as const;

/** How many characters of a key its prefix shows: 6, and never more than a third of the key. */
const PREFIX_CHARS = 6;

/**
 * The non-secret prefix a key is recognised by in lists: its first 6 characters (fewer for a
 * key shorter than 18, so that never more than a third of it shows) and "…".
 */
export function keyPrefixOf(apiKey: string): string {
  return `${apiKey.slice(0, Math.min(PREFIX_CHARS, Math.floor(apiKey.length / 3)))}…`;
}
