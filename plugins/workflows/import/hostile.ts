/**
 * Checks an export before any importer reads it: a `__proto__` key anywhere (a prototype
 * pollution attempt: nothing legitimate is named so) and nesting deeper than any export needs.
 * Answers the first problem with the path to it, or undefined.
 */
export const MAX_IMPORT_DEPTH = 64;

export function hostileShape(data: unknown): { field: string; message: string } | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: data, path: 'data', depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (!value || typeof value !== 'object') continue;
    if (depth > MAX_IMPORT_DEPTH) return { field: path, message: `the export is nested deeper than ${MAX_IMPORT_DEPTH} levels` };
    for (const key of Object.keys(value)) {
      if (key === '__proto__') return { field: `${path}.${key}`, message: 'a key named __proto__ is not accepted anywhere in an import' };
      stack.push({ value: (value as Record<string, unknown>)[key], path: `${path}.${key}`, depth: depth + 1 });
    }
  }
  return undefined;
}
