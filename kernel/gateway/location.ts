import type { AliasResolver } from './resolve-alias.ts';
import { aliasOf } from './resolve-alias.ts';

/** the prefix of every action route; an action's `location` template is relative to it */
export const API_BASE = '/api/v1';

const RESOURCE_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE'];

/**
 * The `Location` of a 201, derived rather than set by each action: the action's `location`
 * template filled from the answer (`/tasks/{id}`), else `<request path>/<answer's id>` when some
 * route serves that path (the created resource's own URI), else the request path itself (the
 * collection that lists what was created: RFC 9110's default for a 201 without Location).
 */
export function locationOf(gateway: AliasResolver<unknown>, requestPath: string, answer: unknown, template?: string): string {
  const filled = template ? fillTemplate(template, answer) : undefined;
  if (filled) return API_BASE + filled;
  const id = idOf(answer);
  if (id !== undefined) {
    const own = `${requestPath}/${encodeURIComponent(id)}`;
    if (RESOURCE_METHODS.some((method) => aliasOf(gateway, own, method))) return own;
  }
  return requestPath;
}

/** A request as its route resolved it: the action declares whether it creates and its `location` template. */
export type RoutedRequest = { originalUrl?: string; url?: string; $action?: Record<string, unknown> };

/**
 * The `Location` of a 201 answer `data` to a route that declares it creates (a `201` response);
 * undefined for any other route (a 201 a workflow's respond step chose is its own answer).
 */
export function createdLocation(gateway: AliasResolver<unknown>, req: RoutedRequest, data: unknown): string | undefined {
  const response = req.$action?.response;
  if (response === null || typeof response !== 'object' || !('201' in response)) return undefined;
  const template = req.$action?.location;
  return locationOf(gateway, requestPathOf(req.originalUrl ?? req.url ?? API_BASE), data, typeof template === 'string' ? template : undefined);
}

/** the path of a request's target, as moleculer-web matches it (no query, no trailing slash) */
export function requestPathOf(url: string): string {
  const path = url.split('?')[0];
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function idOf(answer: unknown): string | undefined {
  const id = answer !== null && typeof answer === 'object' && !Array.isArray(answer) ? (answer as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** `{field}` (or `{object.field}`) parts filled from the answer; undefined when one is missing */
function fillTemplate(template: string, answer: unknown): string | undefined {
  let missing = false;
  const filled = template.replace(/\{([A-Za-z0-9_.]+)\}/g, (_, path: string) => {
    const value = path.split('.').reduce<unknown>((at, field) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[field] : undefined), answer);
    if (typeof value !== 'string' && typeof value !== 'number') {
      missing = true;
      return '';
    }
    return encodeURIComponent(String(value));
  });
  return missing ? undefined : filled;
}
