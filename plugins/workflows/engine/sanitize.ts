import { REDACTED, SECRET_KEY, isSecretEntry } from '../../../kernel/secrets/redact.ts';

/**
 * The sanitised trace of a run: values under secret-looking keys are replaced, secret values
 * (those under secret-looking keys of the run's variables and trigger) are scrubbed wherever
 * they appear, and outputs larger than the bound are summarised.
 */

/** String values found under secret-looking keys (at any depth). */
export function secretValues(...sources: unknown[]): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, underSecret: boolean): void => {
    if (typeof value === 'string') {
      if (underSecret && value.length >= 4) found.add(value);
    } else if (Array.isArray(value)) value.forEach((v) => visit(v, underSecret));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, underSecret || SECRET_KEY.test(k));
  };
  sources.forEach((s) => visit(s, false));
  return [...found].sort((a, b) => b.length - a.length);
}

export function scrub(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') {
    let out = value;
    for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSecretEntry(k, v) && v !== null && typeof v !== 'object' ? REDACTED : scrub(v, secrets);
    return out;
  }
  return value;
}

/** The value itself when small; else a summary with its size and a preview. */
export function summarise(value: unknown, maxBytes: number): unknown {
  if (value === null || value === undefined) return value ?? null;
  const text = JSON.stringify(value);
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return value;
  return { summarised: true, bytes, type: Array.isArray(value) ? 'array' : typeof value, preview: text.slice(0, 256) };
}
