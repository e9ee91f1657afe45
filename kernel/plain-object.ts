/** A plain data object: parsed from JSON or a query string, or an object literal (not an array, a stream, a request or another class's instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
