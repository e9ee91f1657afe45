/** What moleculer-web's alias objects have that the index reads. */
export interface IndexedAlias {
  fullPath: string;
  isMethod(method: string): boolean;
  match(url: string): Record<string, unknown> | false | null | undefined;
}

/** how many leading path segments key the index: /api/v1/<service>/<literal> */
const DEPTH = 4;
/** a segment path-to-regexp reads as plain text (no parameter, wildcard, group or escape) */
const LITERAL = /^[A-Za-z0-9._~-]*$/;

/**
 * moleculer-web's alias lookup without its scan of every alias: a path is tried only against
 * the aliases whose leading literal segments it starts with, in moleculer-web's own order, so
 * the first match is the one moleculer-web would find. Literal text matches case-insensitively
 * (path-to-regexp's default), hence the lower-case keys; a route made case-sensitive is still
 * checked by the alias's own regexp. Rebuilt when moleculer-web replaces or grows its list.
 */
export class AliasIndex<A extends IndexedAlias> {
  private source: A[] | undefined;
  private sourceLength = -1;
  /** alias positions by their literal prefix ('api/v1/tasks'), '' for those with none */
  private byPrefix = new Map<string, number[]>();
  /** candidates for a path, by the longest indexed prefix the path has */
  private candidates = new Map<string, A[]>();

  resolve(aliases: A[], url: string, method: string): { alias: A; params: Record<string, unknown> } | false {
    if (aliases !== this.source || aliases.length !== this.sourceLength) this.rebuild(aliases);
    for (const alias of this.candidatesFor(url)) {
      if (!alias.isMethod(method)) continue;
      const params = alias.match(url);
      if (params) return { alias, params };
    }
    return false;
  }

  private rebuild(aliases: A[]): void {
    this.source = aliases;
    this.sourceLength = aliases.length;
    this.byPrefix = new Map();
    this.candidates = new Map();
    aliases.forEach((alias, position) => {
      const key = literalPrefix(alias.fullPath);
      const list = this.byPrefix.get(key);
      if (list) list.push(position);
      else this.byPrefix.set(key, [position]);
    });
  }

  private candidatesFor(url: string): A[] {
    if (!url.startsWith('/')) return this.source!;
    const path = url.toLowerCase();
    let longest = '';
    // path.slice(1, end) for each of the first DEPTH segment ends: 'api', 'api/v1', ...
    for (let depth = 1, end = 0; depth <= DEPTH && end < path.length; depth++) {
      const next = path.indexOf('/', end + 1);
      end = next === -1 ? path.length : next;
      const key = path.slice(1, end);
      if (this.byPrefix.has(key)) longest = key;
    }
    let found = this.candidates.get(longest);
    if (!found) {
      const positions: number[] = [];
      for (const [key, list] of this.byPrefix) if (key === '' || longest === key || longest.startsWith(`${key}/`)) positions.push(...list);
      found = positions.sort((a, b) => a - b).map((p) => this.source![p]);
      this.candidates.set(longest, found);
    }
    return found;
  }
}

/** the alias path's leading literal segments, lower case, at most DEPTH of them */
function literalPrefix(fullPath: string): string {
  const literal: string[] = [];
  for (const segment of fullPath.split('/').slice(1, DEPTH + 1)) {
    if (!LITERAL.test(segment) || segment === '') break;
    literal.push(segment.toLowerCase());
  }
  return literal.join('/');
}
