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

type Req = IncomingMessage & { $ctx?: Context; $params?: Record<string, unknown>; $action?: Record<string, unknown>; $alias?: { action?: string; type?: string }; $requestId?: string };
type Handler = (req: Req, res: ServerResponse) => void | Promise<void>;
/** what the gateway service instance keeps besides moleculer-web's own state */
type GatewayState = { identities: IdentityCache; aliasIndex: AliasIndex<IndexedAlias>; aliases: IndexedAlias[]; departed: DepartedRoutes<RouteAlias> };

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
          cors: opts.corsOrigins.length ? { origin: opts.corsOrigins, credentials: true, maxAge: 600 } : undefined,
          bodyParsers: { json: { limit: opts.bodyLimit, strict: false, type: JSON_BODY_TYPES }, urlencoded: { extended: true, limit: opts.bodyLimit } },
          busboyConfig: { limits: { files: 10, fileSize: opts.uploadLimitBytes } },
          rateLimit: opts.rateLimitPerMinute > 0 ? { window: 60_000, limit: opts.rateLimitPerMinute, headers: true, key: (req: Req) => req.socket.remoteAddress ?? 'unknown' } : undefined,
          onBeforeCall(ctx: Context, _route: unknown, req: Req) {
            const action = req.$action ?? {};
            beforeCall(ctx.meta as Record<string, unknown>, req, action, req.$alias?.type === 'multipart' || action.multipart === true);
          },
          onAfterCall(ctx: Context, _route: unknown, _req: Req, res: ServerResponse, data: unknown) {
            if (data === undefined || data === null) {
              const meta = ctx.meta as Record<string, unknown>;
              if (!meta.$statusCode) meta.$statusCode = 204;
            }
            res.setHeader('Cache-Control', 'no-store');
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
    methods: {
      // moleculer-web's own lookup, for its request handler and the lean path alike, without its scan of every alias
      resolveAlias(url: string, method = 'GET') {
        const state = this as unknown as GatewayState;
        return state.aliasIndex.resolve(state.aliases, url, method);
      },
      authenticate(ctx: Context, _route: unknown, req: Req) {
        return authenticateRequest(this.broker, ctx, req, req.$action, (this as unknown as GatewayState).identities);
      },
      // moleculer-web's hook after authentication: the route's role, then the parameters
      authorize(ctx: Context, _route: unknown, req: Req) {
        afterAuthentication((ctx.meta as { user?: Identity | null }).user, req.$action ?? {}, req.method ?? 'GET', (req.$params ?? {}) as Record<string, unknown>);
      },
    },
  } as ServiceSchema;
}
