import ApiGateway from 'moleculer-web';
import type { Context, ServiceSchema } from 'moleculer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateRequest, IDENTITY_INVALIDATED_EVENT, type Identity, type IdentityInvalidation } from './authenticate.ts';
import { IdentityCache } from './identity-cache.ts';
import { AliasIndex, type IndexedAlias } from './alias-index.ts';
import { JSON_BODY_TYPES } from './content-type.ts';
import { afterAuthentication, beforeCall } from './before-call.ts';
import { requestIdOf } from './request-id.ts';
import { sendProblem } from './send.ts';
import { failRequest, type FailLogger } from './fail.ts';
import { createLeanCall, type LeanGateway } from './lean-call.ts';
import { NOT_SERVED_OVER_HTTP } from './not-served.ts';
import type { SwapGate } from '../capabilities/swap-gate.ts';
import { installRequestListener, type Gateway } from './request-listener.ts';
import { DepartedRoutes, type RouteAlias } from './departed-routes.ts';
import { IdempotencyGate, keepAnswer } from './idempotency.ts';
import { IdempotencyStore } from '../idempotency/store.ts';
import { lazyPooledSql } from '../db/pooled-sql.ts';
import { createdLocation } from './location.ts';
import { kernelOf } from '../context.ts';

type Req = IncomingMessage & { $ctx?: Context; $params?: Record<string, unknown>; $action?: Record<string, unknown>; $alias?: { action?: string; type?: string }; $route?: unknown; $requestId?: string; originalUrl?: string };
type Handler = (req: Req, res: ServerResponse) => void | Promise<void>;
/** what the gateway service instance keeps besides moleculer-web's own state */
type GatewayState = {
  identities: IdentityCache;
  aliasIndex: AliasIndex<IndexedAlias>;
  aliases: IndexedAlias[];
  departed: DepartedRoutes<RouteAlias>;
  idempotency: IdempotencyGate;
  idempotencyStore: IdempotencyStore;
  pruneTimer?: NodeJS.Timeout;
  resolveAlias(url: string, method: string): unknown;
  writeCorsHeaders(route: unknown, req: Req, res: ServerResponse, isPreFlight: boolean): void;
};
type ResponseMeta = { $statusCode?: number; $location?: string; $responseType?: string; user?: { entity_id?: string } | null };

/** headers a browser's script may read on a cross-origin answer */
const EXPOSED_HEADERS = ['Location', 'Idempotent-Replayed', 'X-Request-Id', 'Retry-After', 'X-Rate-Limit-Limit', 'X-Rate-Limit-Remaining', 'X-Rate-Limit-Reset'];

/** how often expired Idempotency-Keys are deleted */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface ApiGatewayOptions {
  port: number;
  host: string;
  bodyLimit: string;
  uploadLimitBytes: number;
  corsOrigins: string[];
  rateLimitPerMinute: number;
  gate: SwapGate;
  /** kernel routes outside /api/v1 (health, metrics, OpenAPI, docs), by "METHOD /path" */
  kernelRoutes: Record<string, Handler>;
  /** one JSON log line per /api request (when the log level shows info) */
  accessLog: boolean;
  /** how long an Idempotency-Key's first response is replayed */
  idempotencyTtlSeconds: number;
  /** the longest a call may run (REQUEST_TIMEOUT_SECONDS): a key claimed for twice that long was abandoned */
  requestTimeoutMs: number;
}

/**
 * The HTTP gateway: moleculer-web serving /api/v1 from each action's own `rest` and `params`,
 * plus the kernel's own routes. Every error leaves here as problem+json (one place).
 */
export function apiGatewaySchema(opts: ApiGatewayOptions): ServiceSchema {
  const rawAlias = (handler: Handler) => (req: Req, res: ServerResponse) => {
    Promise.resolve(handler(req, res)).catch((err) => sendProblem(res, err, req.$requestId));
  };
  const kernelAliases = Object.fromEntries(Object.entries(opts.kernelRoutes).map(([route, h]) => [route, rawAlias(h)]));
  // the service, for onAfterCall, which moleculer-web calls with another `this` on an upload route
  let gateway!: GatewayState;

  return {
    name: 'api',
    mixins: [ApiGateway],
    settings: {
      port: opts.port,
      ip: opts.host,
      log4XXResponses: false,
      debounceTime: 50,
      logRequest: null,
      logResponse: null,
      logRequestParams: null,
      logResponseData: null,
      rootCallOptions(options: Record<string, unknown>, req: Req, res: ServerResponse) {
        const id = requestIdOf(req);
        req.$requestId = id;
        options.requestID = id;
        res.setHeader('X-Request-Id', id);
      },
      routes: [
        {
          path: '/api/v1',
          autoAliases: true,
          mappingPolicy: 'restrict',
          blacklist: NOT_SERVED_OVER_HTTP,
          authentication: true,
          authorization: true,
          mergeParams: true,
          logging: false,
          cors: opts.corsOrigins.length ? { origin: opts.corsOrigins, credentials: true, maxAge: 600, exposedHeaders: EXPOSED_HEADERS } : undefined,
          bodyParsers: { json: { limit: opts.bodyLimit, strict: false, type: JSON_BODY_TYPES }, urlencoded: { extended: true, limit: opts.bodyLimit } },
          busboyConfig: { limits: { files: 10, fileSize: opts.uploadLimitBytes } },
          rateLimit: opts.rateLimitPerMinute > 0 ? { window: 60_000, limit: opts.rateLimitPerMinute, headers: true, key: (req: Req) => req.socket.remoteAddress ?? 'unknown' } : undefined,
          onBeforeCall(ctx: Context, _route: unknown, req: Req) {
            const action = req.$action ?? {};
            beforeCall(ctx.meta as Record<string, unknown>, req, action, req.$alias?.type === 'multipart' || action.multipart === true);
          },
          // on every path (lean, moleculer-web's, uploads): the answer's status and Location, then the Idempotency-Key keeps it
          onAfterCall(ctx: Context, _route: unknown, req: Req, res: ServerResponse, data: unknown) {
            const meta = ctx.meta as ResponseMeta;
            if ((data === undefined || data === null) && !meta.$statusCode) meta.$statusCode = 204;
            if (meta.$statusCode === 201 && !meta.$location) meta.$location = createdLocation(gateway, req, data);
            res.setHeader('Cache-Control', 'no-store');
            keepAnswer(req, meta, data);
            return data;
          },
        },
        {
          path: '',
          autoAliases: false,
          mappingPolicy: 'restrict',
          bodyParsers: false,
          logging: false,
          aliases: kernelAliases,
        },
      ],
      onError(req: Req, res: ServerResponse, err: unknown) {
        // an error before moleculer-web's CORS step (a body it could not parse) still gets its CORS headers
        if (req.$route && !res.headersSent && !res.hasHeader('Access-Control-Allow-Origin')) {
          try {
            (this as unknown as GatewayState).writeCorsHeaders(req.$route, req, res, false);
          } catch {
            // an origin not allowed gets no CORS headers
          }
        }
        failRequest((this as unknown as { logger: FailLogger }).logger, req, res, err, req.$requestId ?? (req.$ctx?.requestID as string | undefined));
      },
    },
    events: {
      // broadcast before the registry announces the services changed, so the aliases are still those the node served
      '$node.disconnected'() {
        const state = this as unknown as GatewayState;
        state.departed.remember(state.aliases);
      },
      [IDENTITY_INVALIDATED_EVENT]: {
        params: { token_ids: { type: 'array', items: 'string', optional: true }, user_ids: { type: 'array', items: 'string', optional: true } },
        handler(ctx: Context<IdentityInvalidation>) {
          (this as unknown as GatewayState).identities.invalidate(ctx.params);
        },
      },
    },
    created() {
      gateway = this as unknown as GatewayState;
      gateway.idempotencyStore = new IdempotencyStore(lazyPooledSql(() => { const kernel = kernelOf(this.broker); return { db: kernel.db, embedded: kernel.config.embedded.database }; }), { ttlSeconds: opts.idempotencyTtlSeconds, abandonAfterMs: 2 * opts.requestTimeoutMs });
      gateway.idempotency = new IdempotencyGate(
        gateway.idempotencyStore,
        (err) => this.logger.error({ err }, 'keeping the answer of an Idempotency-Key failed; the key stays claimed until abandoned'),
        (req, status, data) => (status === 201 ? createdLocation(gateway, req, data) ?? null : null),
      );
      (this as unknown as GatewayState).identities = new IdentityCache();
      (this as unknown as GatewayState).aliasIndex = new AliasIndex();
      const registry = this.broker.registry as unknown as { getActionEndpoints(action: string): { hasAvailable(): boolean } | undefined };
      const departed = new DepartedRoutes<RouteAlias>((action) => registry.getActionEndpoints(action)?.hasAvailable() ?? false);
      (this as unknown as GatewayState).departed = departed;
      const leanCall = createLeanCall(this as unknown as LeanGateway, {
        corsEnabled: opts.corsOrigins.length > 0,
        bodyLimit: opts.bodyLimit,
      });
      installRequestListener(this as unknown as Gateway, {
        gate: opts.gate,
        kernelRoutes: opts.kernelRoutes,
        accessLog: opts.accessLog,
        leanCall,
        departed,
      });
    },
    started() {
      const state = this as unknown as GatewayState;
      state.pruneTimer = setInterval(() => {
        state.idempotencyStore.prune().catch((err: unknown) => this.logger.warn({ err }, 'pruning expired Idempotency-Keys failed'));
      }, PRUNE_EVERY_MS).unref();
    },
    stopped() {
      clearInterval((this as unknown as GatewayState).pruneTimer);
    },
    methods: {
      // moleculer-web's own lookup, for its request handler and the lean path alike, without its scan of every alias
      resolveAlias(url: string, method = 'GET') {
        const state = this as unknown as GatewayState;
        return state.aliasIndex.resolve(state.aliases, url, method);
      },
      authenticate(ctx: Context, _route: unknown, req: Req) {
        return authenticateRequest(this.broker, ctx, req, req.$action, (this as unknown as GatewayState).identities);
      },
      // moleculer-web's hook after authentication: the route's role, the parameters, then the Idempotency-Key
      async authorize(ctx: Context, _route: unknown, req: Req) {
        const params = (req.$params ?? {}) as Record<string, unknown>;
        const action = req.$action ?? {};
        afterAuthentication((ctx.meta as { user?: Identity | null }).user, action, req.method ?? 'GET', params);
        await (this as unknown as GatewayState).idempotency.enter(req, action, ctx.meta as ResponseMeta, params, req.$alias?.type === 'multipart' || action.multipart === true);
      },
    },
  } as ServiceSchema;
}
