import type { ServiceBroker } from 'moleculer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateRequest, type Caller, type Identity } from './authenticate.ts';
import type { IdentityCache } from './identity-cache.ts';
import { requestIdOf } from './request-id.ts';
import { failRequest, type FailLogger } from './fail.ts';
import { hasBody, isJson, JSON_BODY_TYPES, mediaTypeOf } from './content-type.ts';
import { afterAuthentication, beforeCall } from './before-call.ts';
import bodyParser from 'body-parser';
import bytes from 'bytes';
import { readJsonBody } from './json-body.ts';
import { aliasOf } from './resolve-alias.ts';
import ApiGateway from 'moleculer-web';
import type { IdempotencyGate } from './idempotency.ts';
import type { ActionDocKeys } from '../openapi/types.ts';

/** What the lean path needs of moleculer-web's service (methods it already has). */
export interface LeanGateway {
  broker: ServiceBroker;
  logger: FailLogger;
  identities: IdentityCache;
  idempotency: IdempotencyGate;
  resolveAlias(url: string, method: string): ResolvedAlias | false;
  parseQueryString(req: IncomingMessage): { url: string; query: Record<string, unknown> };
  sendResponse(req: IncomingMessage, res: ServerResponse, data: unknown, action: unknown): void;
  checkBlacklist(route: Route, action: string): boolean;
}

interface Route {
  hasBlacklist?: boolean;
  onAfterCall?(this: unknown, ctx: { meta: Record<string, unknown> }, route: Route, req: IncomingMessage, res: ServerResponse, data: unknown): unknown;
  rateLimit?: { key(req: IncomingMessage): string | undefined; limit: number; headers?: boolean; store: { inc(key: string): Promise<number> | number; resetTime: number } };
  callOptions?: Record<string, unknown>;
}

interface ResolvedAlias {
  alias: { action?: string; type?: string; handler?: unknown; passReqResToParams?: boolean; route: Route };
  params: Record<string, unknown>;
}

type Endpoint = { action: Pick<ActionDocKeys, 'auth' | 'idempotency' | 'response' | 'location'> & { name: string; visibility?: string; accepts?: unknown; multipart?: unknown; role?: unknown } };
type BodyParser = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

interface LeanOptions {
  corsEnabled: boolean;
  /** the JSON body limit of the /api/v1 route (as moleculer-web's body parser takes it) */
  bodyLimit: string;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The call path of the gateway for an /api/v1 action with no body or a JSON one: the same steps,
 * in the same order, as moleculer-web's route (JSON body parsed as its body-parser does: by
 * json-body.ts when plain UTF-8, by that same body-parser otherwise; rate
 * limit, the checks before and after authentication, bearer token, parameters merged from body,
 * query and path, the route's onAfterCall and moleculer-web's own sendResponse, problem+json
 * errors), without its per-request `api.rest` action and middleware chain, which cost more than
 * a cached read itself. Returns false, having done nothing, for anything it does not handle the
 * same way (another body type, CORS, a custom alias handler, streams and uploads, an action not
 * found or not published, a blacklisted one, tracing on): moleculer-web then serves it.
 */
export function createLeanCall(gateway: LeanGateway, opts: LeanOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const parseJson = bodyParser.json({ limit: opts.bodyLimit, strict: false, type: JSON_BODY_TYPES }) as BodyParser;
  const limit = bytes.parse(opts.bodyLimit);
  if (limit === null) throw new Error(`bodyLimit '${opts.bodyLimit}' is not a size`);
  return (req, res) => {
    if (!METHODS.has(req.method ?? '') || (opts.corsEnabled && req.headers.origin !== undefined)) return false;
    const withBody = hasBody(req);
    if (withBody && !isJson(mediaTypeOf(req))) return false;
    // with tracing on, moleculer-web's request span is the root of the trace: keep it
    if (gateway.broker.isTracingEnabled()) return false;
    const { url, query } = gateway.parseQueryString(req);
    const path = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
    const found = aliasOf(gateway, path, req.method!);
    if (!found) return false;
    const { alias } = found;
    if (!alias.action || alias.handler || alias.type === 'stream' || alias.type === 'multipart' || (alias.route.hasBlacklist && gateway.checkBlacklist(alias.route, alias.action))) return false;
    const endpoint = gateway.broker.findNextActionEndpoint(alias.action, alias.route.callOptions ?? {}) as Endpoint | Error;
    if (endpoint instanceof Error || (endpoint.action.visibility != null && endpoint.action.visibility !== 'published') || endpoint.action.multipart === true) return false;

    const requestId = requestIdOf(req);
    res.setHeader('X-Request-Id', requestId);
    const r = req as IncomingMessage & { $requestId?: string; query?: unknown; body?: unknown };
    r.$requestId = requestId;
    r.query = query;
    const call = { route: alias.route, endpoint, passReqRes: alias.passReqResToParams === true, pathParams: found.params, query, requestId };
    if (!withBody) performOrFail(gateway, req, res, call);
    else if (!readJsonBody(req, limit, (err, body) => (err ? failRequest(gateway.logger, req, res, err, requestId) : performOrFail(gateway, Object.assign(req, { body }), res, call)))) {
      parseJson(req, res, (err) => (err ? failRequest(gateway.logger, req, res, err, requestId) : performOrFail(gateway, req, res, call)));
    }
    return true;
  };
}

type Call = Parameters<typeof perform>[3];

// no closures made per request: under tsx (keepNames) each named closure costs an Object.defineProperty
function performOrFail(gateway: LeanGateway, req: IncomingMessage, res: ServerResponse, call: Call): void {
  perform(gateway, req, res, call).catch((err) => failRequest(gateway.logger, req, res, err, call.requestId));
}

/** What authentication may call, with the request's meta and call options. */
class RequestCaller implements Caller {
  constructor(readonly meta: Record<string, unknown>, private readonly broker: ServiceBroker, private readonly options: Record<string, unknown>) {}

  call(action: string, params: object): Promise<unknown> {
    return this.broker.call(action, params, this.options);
  }
}

async function perform(
  gateway: LeanGateway,
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  c: { route: Route; endpoint: Endpoint; passReqRes: boolean; pathParams: Record<string, unknown>; query: Record<string, unknown>; requestId: string },
): Promise<void> {
  const body = req.body !== null && typeof req.body === 'object' ? req.body : {};
  const params: Record<string, unknown> = { ...body, ...c.query, ...c.pathParams };
  if (c.passReqRes) Object.assign(params, { $req: req, $res: res });
  await applyRateLimit(c.route, req, res);
  const meta: Record<string, unknown> = {};
  const action = c.endpoint.action;
  // as moleculer-web's onBeforeCall does, before authentication (the lean path never serves an upload route)
  beforeCall(meta, req, action, false);
  const callOptions = { ...c.route.callOptions, meta, requestID: c.requestId };
  const caller = new RequestCaller(meta, gateway.broker, callOptions);
  meta.user = (await authenticateRequest(gateway.broker, caller, req, action, gateway.identities)) ?? null;
  afterAuthentication(meta.user as Identity | null, action, req.method ?? 'GET', params);
  await gateway.idempotency.enter(req, action, meta, params, false);
  const data = await gateway.broker.call(c.endpoint as never, params, callOptions);
  // the response as moleculer-web writes it: its route's onAfterCall, then its own sendResponse
  const ctx = { meta };
  Object.assign(req, { $ctx: ctx, $route: c.route, $action: action });
  const answer = c.route.onAfterCall ? await c.route.onAfterCall.call(gateway, ctx, c.route, req, res, data) : data;
  if (res.headersSent || res.writableEnded) return; // the action answered itself
  gateway.sendResponse(req, res, answer, c.endpoint.action);
}

async function applyRateLimit(route: Route, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const limit = route.rateLimit;
  const key = limit?.key(req);
  if (!limit || !key) return;
  const remaining = limit.limit - (await limit.store.inc(key));
  if (limit.headers) {
    res.setHeader('X-Rate-Limit-Limit', limit.limit);
    res.setHeader('X-Rate-Limit-Remaining', Math.max(0, remaining));
    res.setHeader('X-Rate-Limit-Reset', limit.store.resetTime);
  }
  if (remaining < 0) throw new ApiGateway.Errors.RateLimitExceeded(undefined as never);
}
