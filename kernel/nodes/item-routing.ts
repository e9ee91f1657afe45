/**
 * Item mode of the routing node types (condition, switch, filter given `items`): every item goes
 * to one branch; a branch's targets receive its items as their input and a branch without items
 * is not taken. The answer carries `route` (target step -> output key) and `origins` (per key,
 * each item's index in the list given) for the engine (plugins/workflows/engine/item-routes.ts).
 */
export type Targets = string | string[] | undefined;

export interface RoutedItems {
  output: Record<string, unknown[]>;
  next: string[];
  route: Record<string, string>;
  origins: Record<string, number[]>;
}

/**
 * Sorts items into branches by `branchOf` (a key of `targets`, several keys (the item goes to
 * each), or undefined: the item goes nowhere) and says which targets follow. A step named by two
 * branches that both have items gets neither part: it receives the whole output.
 */
export async function routeItems(items: unknown[], keys: readonly string[], branchOf: (item: unknown, index: number) => string | string[] | undefined, targets: Record<string, Targets>, tick: () => Promise<void>): Promise<RoutedItems> {
  const output: Record<string, unknown[]> = Object.fromEntries(keys.map((k) => [k, []]));
  const origins: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
  for (let i = 0; i < items.length; i++) {
    for (const key of [branchOf(items[i], i) ?? []].flat()) {
      if (!Object.hasOwn(output, key)) continue;
      output[key].push(items[i]);
      origins[key].push(i);
    }
    await tick();
  }
  const next: string[] = [];
  const route: Record<string, string> = {};
  const shared = new Set<string>();
  for (const key of keys) {
    if (output[key].length === 0) continue;
    for (const target of [targets[key] ?? []].flat()) {
      if (Object.hasOwn(route, target)) shared.add(target);
      else {
        route[target] = key;
        next.push(target);
      }
    }
  }
  for (const target of shared) delete route[target];
  return { output, next, route, origins };
}
