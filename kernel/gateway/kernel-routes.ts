import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceBroker } from 'moleculer';
import type { HealthMonitor } from '../health/monitor.ts';
import type { GatewayPrometheusReporter } from './metrics-reporter.ts';
import { docsRoutes } from './docs-pages.ts';
import { sendJson } from './send.ts';
import { problemType } from '../errors/problem.ts';
import { ERRORS } from '../errors/catalogue.ts';
import { OpenApiCache } from './openapi-cache.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

const HEALTH_BODY = JSON.stringify({ status: 'ok' });

/** The kernel's own routes beside /api/v1: health, metrics, the OpenAPI document and its viewers. */
export function kernelRoutes(deps: { broker: ServiceBroker; health: HealthMonitor; metrics?: GatewayPrometheusReporter; version: string }): Record<string, Handler> {
  const openapi = new OpenApiCache(deps.broker, { version: deps.version, metrics: deps.metrics !== undefined });
  const routes: Record<string, Handler> = {
    'GET /health': (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': HEALTH_BODY.length, 'Cache-Control': 'no-store' });
      res.end(HEALTH_BODY);
    },
    'GET /health/ready': (_req, res) => {
      const { ready, reason } = deps.health;
      if (ready) return sendJson(res, 200, { status: 'ready' }, { 'Cache-Control': 'no-store' });
      sendJson(res, 503, { type: problemType('SERVICE_UNAVAILABLE'), title: 'Not ready', status: 503, detail: reason, code: 'SERVICE_UNAVAILABLE' }, { 'Content-Type': 'application/problem+json', 'Retry-After': '2', 'Cache-Control': 'no-store' });
    },
    'GET /health/deep': async (_req, res) => {
      const { ok, components } = await deps.health.deep();
      const failing = components.filter((c) => c.status !== 'ok').map((c) => c.name);
      const body = { status: ok ? 'ok' : 'failed', node: deps.broker.nodeID, ready: deps.health.ready, failing, components };
      sendJson(res, ok ? 200 : 503, body, { 'Cache-Control': 'no-store' });
    },
    'GET /api/openapi.json': (_req, res) => sendJson(res, 200, openapi.document(), { 'Cache-Control': 'no-cache' }),
    ...docsRoutes,
  };
  if (deps.metrics) {
    const reporter = deps.metrics;
    routes['GET /metrics'] = (_req, res) => {
      const text = reporter.text();
      res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    };
  } else {
    routes['GET /metrics'] = () => {
      throw ERRORS.NOT_FOUND('Metrics are disabled (METRICS_ENABLED=false).');
    };
  }
  return routes;
}
