import type { IndexedAlias } from './alias-index.ts';

/** a moleculer-web alias, as far as departures need it */
export type RouteAlias = IndexedAlias & { action?: string };

/**
 * Routes whose service left with its node. When a node disconnects, its services leave the
 * registry, and moleculer-web regenerates its aliases without their routes, so a request would
 * be answered 404 ROUTE_NOT_FOUND. The service behind such a route still exists in the product;
 * it runs on no node right now, and that is a 503 SERVICE_UNAVAILABLE (docs/errors.md).
 *
 * `remember` takes the aliases as they were when the node went, keeping those whose action has
 * no endpoint left. `find` gives the one a request is for while its action still has none. A
 * route whose action is back is forgotten: its alias is regenerated, and it resolves before this
 * is asked. A package unloaded on a live node is not a departure: its routes are gone (404).
 */
export class DepartedRoutes<A extends RouteAlias> {
  private aliases: A[] = [];

  constructor(private readonly served: (action: string) => boolean) {}

  get empty(): boolean {
    return this.aliases.length === 0;
  }

  remember(current: readonly A[]): void {
    const lost = current.filter((a) => a.action !== undefined && !this.served(a.action));
    this.aliases = [...this.stillDeparted(), ...lost.filter((a) => !this.aliases.includes(a))];
  }

  find(path: string, method: string): A | undefined {
    this.aliases = this.stillDeparted();
    return this.aliases.find((a) => a.isMethod(method) && matches(a, path));
  }

  private stillDeparted(): A[] {
    return this.aliases.filter((a) => !this.served(a.action!));
  }
}

/** an alias's own match, false for a path it cannot decode (it throws then) */
function matches(alias: RouteAlias, path: string): boolean {
  try {
    return Boolean(alias.match(path));
  } catch {
    return false;
  }
}
