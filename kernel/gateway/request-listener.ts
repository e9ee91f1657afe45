import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { SwapGate } from '../capabilities/swap-gate.ts';
import { requestIdOf } from './request-id.ts';
import { sendProblem } from './send.ts';
import { aliasOf } from './resolve-alias.ts';
import { Errors } from 'moleculer';
import type { DepartedRoutes, RouteAlias } from './departed-routes.ts';

export type Gateway = {
  server: Server;
  logger: { info(obj: object, msg: string): void };
  resolveAlias(url: string, method: string): { alias?: { action?: string } } | false;
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * What the gateway's HTTP server does with a request before moleculer-web sees it:
 * - exact kernel routes (/health, /health/ready, /metrics, /api/openapi.json, docs pages) are
 *   answered directly: they are probes and documents, not actions, and going through the
 *   action pipeline would triple their cost;
 * - while a package is being swapped, a request for one of its routes (or for a route that
 *   does not resolve, since the old aliases may already be gone) waits for the swap to end,
 *   so a reload drops no request;
 * - a route whose service left with its node (departed-routes.ts) is a 503, not moleculer-web's 404;
 * - a call with no body or a JSON one takes the lean call path (lean-call.ts) when nothing is being swapped;
 * - every /api request gets one JSON access-log line when asked for.
 */
export function installRequestListener(
  gateway: Gateway,
  opts: { gate: SwapGate; kernelRoutes: Record<string, Handler>; accessLog: boolean; leanCall?: (req: IncomingMessage, res: ServerResponse) => boolean; departed?: DepartedRoutes<RouteAlias> },
): void {
  const listeners = gateway.server.listeners('request') as Handler[];
  const exact = new Map(Object.entries(opts.kernelRoutes).filter(([route]) => !route.includes(':')));
  gateway.server.removeAllListeners('request');
  gateway.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const direct = exact.get(`${req.method} ${path}`);
    if (direct) return serveDirect(direct, req, res);
    if (opts.accessLog) accessLog(gateway, req, res);
    if (!path.startsWith('/api/v1')) return passOn(listeners, req, res);
    if (!opts.gate.active) {
      if (opts.leanCall?.(req, res) || answerDeparted(gateway, opts.departed, req, res, path)) return;
      return passOn(listeners, req, res);
    }
    const found = aliasOf(gateway, path, req.method ?? 'GET');
    const action = found ? found.alias?.action : undefined;
    const held = action ? opts.gate.wait(action.slice(0, action.lastIndexOf('.'))) : opts.gate.idle();
    // a path that did not resolve is looked up again once the swap is over (departed or not)
    const serve = () => void (answerDeparted(gateway, opts.departed, req, res, path) || passOn(listeners, req, res));
    if (held) held.then(serve, serve);
    else serve();
  });
}

/**
 * 503 for a path no alias serves now whose route departed with its node; false otherwise. Asked
 * only of requests the lean path did not take, and free while nothing has departed.
 */
function answerDeparted(gateway: Gateway, departed: DepartedRoutes<RouteAlias> | undefined, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (!departed || departed.empty) return false;
  const method = req.method ?? 'GET';
  if (aliasOf(gateway, path, method)) return false;
  const route = departed.find(path, method);
  if (!route) return false;
  sendProblem(res, new Errors.ServiceNotFoundError({ action: route.action! }), requestIdOf(req));
  return true;
}

/** hands a request to moleculer-web's own listeners */
function passOn(listeners: Handler[], req: IncomingMessage, res: ServerResponse): void {
  for (const listener of listeners) void listener(req, res);
}

function serveDirect(handler: Handler, req: IncomingMessage, res: ServerResponse): void {
  const id = requestIdOf(req);
  res.setHeader('X-Request-Id', id);
  try {
    const done = handler(req, res);
    if (done) done.catch((err) => sendProblem(res, err, id));
  } catch (err) {
    sendProblem(res, err, id);
  }
}

/** One JSON line per request, with the request id the response carries. */
function accessLog(gateway: Gateway, req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now();
  res.once('finish', () => {
    gateway.logger.info(
      { request_id: res.getHeader('X-Request-Id'), method: req.method, url: (req as { originalUrl?: string }).originalUrl ?? req.url, status: res.statusCode, duration_ms: Math.round((performance.now() - started) * 10) / 10 },
      'request',
    );
  });
}
