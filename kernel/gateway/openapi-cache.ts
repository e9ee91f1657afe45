import type { ServiceBroker } from 'moleculer';
import { buildOpenApi } from '../openapi/build.ts';
import type { PathItem, ServiceInfo } from '../openapi/types.ts';
import { NOT_SERVED_OVER_HTTP } from './not-served.ts';

/** Paths the kernel serves itself; public, so `security: []`. */
const KERNEL_PATHS: Record<string, PathItem> = {
  '/health': { get: { operationId: 'kernel.health', summary: 'Process is up', tags: ['health'], security: [], responses: { '200': { description: 'Up', content: { 'application/json': { schema: { type: 'object', properties: { status: { type: 'string', const: 'ok' } }, required: ['status'] } } } } } } },
  '/health/ready': { get: { operationId: 'kernel.ready', summary: 'Stores reachable, migrations applied, packages loaded', tags: ['health'], security: [], responses: { '200': { description: 'Ready' }, '503': { description: 'Not ready yet' } } } },
  '/health/deep': { get: { operationId: 'kernel.deep', summary: 'Each store checked for real, package states', tags: ['health'], security: [], responses: { '200': { description: 'All components ok' }, '503': { description: 'A component failed; named in `failing`' } } } },
  '/api/openapi.json': { get: { operationId: 'kernel.openapi', summary: 'This document', tags: ['meta'], security: [], responses: { '200': { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } } } },
};

const METRICS_PATH: Record<string, PathItem> = {
  '/metrics': { get: { operationId: 'kernel.metrics', summary: 'Prometheus metrics', tags: ['health'], security: [], responses: { '200': { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
};

function servedOnly(services: ServiceInfo[]): ServiceInfo[] {
  return services.map((service) => ({
    ...service,
    actions: Object.fromEntries(Object.entries(service.actions ?? {}).filter(([key, action]) => !NOT_SERVED_OVER_HTTP.some((re) => re.test(action.name ?? key)))),
  }));
}

export interface OpenApiCacheOptions {
  version: string;
  /** whether GET /metrics serves Prometheus text (METRICS_ENABLED); documented only then */
  metrics: boolean;
}

/** The OpenAPI document, rebuilt from the live registry whenever the services change. */
export class OpenApiCache {
  private cached: unknown;

  constructor(private readonly broker: ServiceBroker, private readonly opts: OpenApiCacheOptions) {
    broker.localBus.on('$services.changed', () => (this.cached = undefined));
  }

  document(): unknown {
    this.cached ??= buildOpenApi({
      services: servedOnly(this.broker.registry.getServiceList({ withActions: true, grouping: true }) as unknown as ServiceInfo[]),
      basePath: '/api/v1',
      info: { title: 'Workspace Agent Operations API', version: this.opts.version, description: 'Every route of the platform, generated from the live service registry.' },
      extraPaths: this.opts.metrics ? { ...KERNEL_PATHS, ...METRICS_PATH } : KERNEL_PATHS,
    });
    return this.cached;
  }
}
