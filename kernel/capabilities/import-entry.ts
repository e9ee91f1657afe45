import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { sep } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import type { ServiceSchema } from 'moleculer';

const require = createRequire(import.meta.url);

/**
 * Imports a package entry afresh. tsx gives every import its own namespace, so an ESM (or
 * TypeScript) module graph is loaded anew on each call, and CommonJS files of the package are
 * dropped from `require.cache` first. Old module instances stay in memory until unreferenced;
 * reloads are bounded by how often an operator changes a package.
 */
export async function importEntry(entryPath: string, packageDir: string): Promise<ServiceSchema[]> {
  const prefix = packageDir.endsWith(sep) ? packageDir : packageDir + sep;
  for (const key of Object.keys(require.cache)) if (key.startsWith(prefix)) delete require.cache[key];
  const mod = await tsImport(pathToFileURL(entryPath).href, import.meta.url);
  return toSchemas(mod);
}

/** Accepts `export default schema`, `export default [schemas]`, `module.exports = schema` or named exports. */
export function toSchemas(mod: unknown): ServiceSchema[] {
  let value = mod as Record<string, unknown>;
  // CommonJS through ESM and TS-compiled-to-CJS wrap the export in one or two `default` layers
  for (let i = 0; i < 3 && value && typeof value === 'object' && !isSchema(value) && !Array.isArray(value) && 'default' in value; i++) {
    value = value.default as Record<string, unknown>;
  }
  if (Array.isArray(value)) return value.filter(isSchema) as ServiceSchema[];
  if (isSchema(value)) return [value as unknown as ServiceSchema];
  if (value && typeof value === 'object') {
    const named = Object.values(value).filter(isSchema) as ServiceSchema[];
    if (named.length) return named;
  }
  throw new Error('the entry exports no moleculer service schema (an object with a "name")');
}

function isSchema(value: unknown): boolean {
  return !!value && typeof value === 'object' && typeof (value as { name?: unknown }).name === 'string';
}
