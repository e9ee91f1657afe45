import { AliasIndex, type IndexedAlias } from './alias-index.ts';

/** What has moleculer-web's alias lookup (its service). */
export interface AliasResolver<T> {
  resolveAlias(url: string, method: string): T | false;
  /** moleculer-web's alias list, when the index may be used in place of its scan */
  aliases?: IndexedAlias[];
}

const indexes = new WeakMap<object, AliasIndex<IndexedAlias>>();

/**
 * moleculer-web's alias lookup (through an AliasIndex when its alias list is at hand), or false
 * when no alias matches or the path cannot be decoded (`%ZZ`): the lookup throws then, and
 * outside moleculer-web's own request handling that would be an uncaught exception. Given false,
 * the caller hands the request to moleculer-web, which answers it (400 for a bad encoding).
 */
export function aliasOf<T>(gateway: AliasResolver<T>, path: string, method: string): T | false {
  try {
    if (!Array.isArray(gateway.aliases)) return gateway.resolveAlias(path, method);
    let index = indexes.get(gateway);
    if (!index) indexes.set(gateway, (index = new AliasIndex()));
    return index.resolve(gateway.aliases, path, method) as T | false;
  } catch {
    return false;
  }
}
