/** What has moleculer-web's alias lookup (its service; api-service.ts makes it an AliasIndex). */
export interface AliasResolver<T> {
  resolveAlias(url: string, method: string): T | false;
}

/**
 * moleculer-web's alias lookup, or false when no alias matches or the path cannot be decoded
 * (`%ZZ`): the lookup throws then, and outside moleculer-web's own request handling that would
 * be an uncaught exception. Given false, the caller hands the request to moleculer-web, which
 * answers it (400 for a bad encoding).
 */
export function aliasOf<T>(gateway: AliasResolver<T>, path: string, method: string): T | false {
  try {
    return gateway.resolveAlias(path, method);
  } catch {
    return false;
  }
}
