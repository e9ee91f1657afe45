/**
 * Equality as workflow nodes compare values: objects and arrays by their JSON, and across types
 * by text ("5" from a query string equals 5 from a config); null equals only null.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  if (typeof a !== typeof b && a !== null && b !== null) return String(a) === String(b);
  return a === b;
}
