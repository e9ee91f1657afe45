import { pathOf, type TemplateScope } from './templates.ts';

/**
 * Items routed by item-mode nodes (condition, switch, filter given `items`): they answer
 * `route` (each target step -> the key of their output holding its items) and `origins` (per
 * key, each item's index in the list they were given). The engine composes origins along the
 * way, so an item keeps the index it had where the chain started and `{{step.output[$item]}}`
 * finds its pair; a step with `config.each` passes its list's origins on.
 */
const WHOLE_STEP_REF = /^\s*\{\{\s*([^{}]+?)\s*\}\}\s*$/;

/**
 * The origins of the list a whole-string template reads (`{{s.output}}`, `{{s.output.true}}`),
 * from what step `s` recorded; undefined when it recorded none (each element is its own origin).
 */
export function originsFrom(template: unknown, scope: TemplateScope): number[] | undefined {
  if (typeof template !== 'string' || !scope.originsOf) return undefined;
  const m = WHOLE_STEP_REF.exec(template);
  if (!m) return undefined;
  const [head, output, ...rest] = pathOf(m[1]);
  if (!scope.stepIds.has(head) || output !== 'output' || rest.length > 1) return undefined;
  const recorded = scope.originsOf(head);
  if (rest.length === 0) return Array.isArray(recorded) ? (recorded as number[]) : undefined;
  const byKey = recorded && typeof recorded === 'object' && !Array.isArray(recorded) ? (recorded as Record<string, unknown>) : {};
  return Object.hasOwn(byKey, rest[0]) && Array.isArray(byKey[rest[0]]) ? (byKey[rest[0]] as number[]) : undefined;
}

/** Local indexes (into the list a router was given) turned into origins, through the list's own origins. */
export function composeOrigins(local: Record<string, number[]>, upstream: number[] | undefined): Record<string, number[]> {
  if (!upstream) return local;
  return Object.fromEntries(Object.entries(local).map(([key, indexes]) => [key, indexes.map((i) => upstream[i] ?? i)]));
}

/** Whether a node's `route` answer is well formed: each key a step of `next`, each value a key of the output. */
export function routeOf(raw: unknown, next: readonly string[], output: unknown): Record<string, string> | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || !output || typeof output !== 'object') return undefined;
  const route: Record<string, string> = {};
  for (const [target, key] of Object.entries(raw)) if (next.includes(target) && typeof key === 'string' && Object.hasOwn(output, key)) route[target] = key;
  return Object.keys(route).length ? route : undefined;
}

/** What a child receives from a parent: the part of the parent's output its route names, else all of it. */
export function routedOutput(directive: Record<string, unknown> | null | undefined, childId: string, output: unknown): unknown {
  const route = directive?.route as Record<string, string> | undefined;
  if (!route || !Object.hasOwn(route, childId) || !output || typeof output !== 'object') return output;
  return (output as Record<string, unknown>)[route[childId]] ?? null;
}
