/**
 * Field paths into list items, as the data node types name them: `customer.email`,
 * `lines[0].sku`, `tags.0`; an empty path is the item itself. Only own properties are read
 * (`__proto__`, `constructor` and friends of a plain object are not fields).
 */
const PATHS = new Map<string, string[]>();

export function parseFieldPath(path: string): string[] {
  const known = PATHS.get(path);
  if (known) return known;
  const parts = path.replace(/\[(\d+|"[^"]*"|'[^']*')\]/g, (_, k: string) => `.${k.replace(/^["']|["']$/g, '')}`).split('.').filter(Boolean);
  if (PATHS.size > 10_000) PATHS.clear();
  PATHS.set(path, parts);
  return parts;
}

export function valueAt(item: unknown, path: string): unknown {
  let current = item;
  for (const key of parseFieldPath(path)) {
    if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** config_schema of a field path. */
export const FIELD_PATH_SCHEMA = {
  type: 'string',
  maxLength: 500,
  description: "A path into each item: 'customer.email', 'lines[0].sku'; '' is the item itself.",
  examples: ['customer.email'],
} as const;
