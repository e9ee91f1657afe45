import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The folders, relative to the project root, whose sub-folders are capability packages. */
export const BUILTIN_ROOTS = ['plugins', 'channels', 'tools', 'nodes', 'sandbox', 'executors'];

/**
 * Lists the package folders under the given roots: each direct sub-folder whose package.json
 * has a `capability` key, and for npm scopes (`@acme/…`) one level further down.
 */
export function discoverPackageDirs(roots: string[]): string[] {
  const found: string[] = [];
  for (const root of roots.map((r) => resolve(r))) {
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root).sort()) {
      const dir = join(root, name);
      if (name.startsWith('.') || !isDir(dir)) continue;
      if (name.startsWith('@')) {
        for (const sub of readdirSync(dir).sort()) if (isCapabilityDir(join(dir, sub))) found.push(join(dir, sub));
      } else if (isCapabilityDir(dir)) {
        found.push(dir);
      }
    }
  }
  return found;
}

/** A folder is a capability package when its package.json mentions a `capability` key. */
export function isCapabilityDir(dir: string): boolean {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return false;
  try {
    return 'capability' in JSON.parse(readFileSync(manifest, 'utf8'));
  } catch {
    return true; // a broken package.json is still reported, as a failed package
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
