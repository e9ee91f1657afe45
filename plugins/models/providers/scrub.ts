/** Longest provider message passed on to callers. */
const MAX_MESSAGE = 500;
/** Any run of this many characters that also occurs in the key is removed. */
const GRAM = 8;

/** Things that look like credentials: `sk-…` style keys, bearer tokens, x-api-key values. */
const KEYLIKE: [RegExp, string][] = [
  [/\b(?:sk|pk|rk|ak)-[A-Za-z0-9_*.-]{6,}/g, '[redacted]'],
  [/\bBearer\s+[A-Za-z0-9._~+/=*-]{6,}/gi, 'Bearer [redacted]'],
  [/(x-api-key["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, '$1[redacted]'],
];

/**
 * A provider's message made safe to show and log: every run of 8 or more characters that also
 * occurs in the key is removed (so the key, and any part of it a provider echoes, e.g.
 * "Incorrect API key provided: sk-proj-****abcd", is gone), anything shaped like a key or a
 * bearer token is replaced, control characters are dropped and the length is bounded.
 */
export function scrubSecret(message: string, key: string): string {
  let text = message.slice(0, MAX_MESSAGE * 4);
  if (key.length >= GRAM) text = removeSharedRuns(text, key);
  else if (key) text = text.split(key).join('[redacted]');
  for (const [pattern, replacement] of KEYLIKE) text = text.replace(pattern, replacement);
  // eslint-disable-next-line no-control-regex
  text = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

function removeSharedRuns(text: string, key: string): string {
  const grams = new Set<string>();
  for (let i = 0; i + GRAM <= key.length; i++) grams.add(key.slice(i, i + GRAM));
  const hidden = new Uint8Array(text.length);
  for (let i = 0; i + GRAM <= text.length; i++) {
    if (grams.has(text.slice(i, i + GRAM))) hidden.fill(1, i, i + GRAM);
  }
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!hidden[i]) out += text[i];
    else if (i === 0 || !hidden[i - 1]) out += '[redacted]';
  }
  return out;
}
