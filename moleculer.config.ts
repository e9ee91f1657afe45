import { hostname } from 'node:os';
import { Validators, type BrokerOptions } from 'moleculer';
import type { Config } from './config/load.ts';
import { tracingOptions } from './kernel/tracing/options.ts';
import { brokerMiddlewares } from './kernel/metrics/action-metrics.ts';
import { pinoLoggerOptions } from './kernel/log-format.ts';
import { workspaceWriteGuard } from './kernel/workspace-state.ts';

/**
 * Broker settings in one place. Every node of a cluster builds its broker from here, so
 * they agree on namespace, serializer, timeouts, tracking and validation.
 */
export function brokerOptions(config: Config, extras: { metricsReporter?: object; version?: string } = {}): BrokerOptions {
  const env = config.env;
  const queues = [...(env.ROLES.includes('control') ? ['celery'] : []), ...(env.ROLES.includes('work') ? ['work'] : [])];
  const graceMs = env.SHUTDOWN_GRACE_SECONDS * 1000;
  const nodeID = env.NODE_ID || `${hostname()}-${process.pid}`;
  return {
    namespace: env.NAMESPACE,
    nodeID,
    transporter: (env.TRANSPORTER || undefined) as BrokerOptions['transporter'],
    serializer: 'JSON',
    // what other nodes (and GET /api/v1/workers) learn about this node from the registry
    metadata: {
      roles: env.ROLES,
      queues,
      concurrency: { celery: env.WORKER_CONTROL_CONCURRENCY, work: env.WORKER_WORK_CONCURRENCY },
      version: extras.version ?? null,
    },
    requestTimeout: env.REQUEST_TIMEOUT_SECONDS * 1000,
    retryPolicy: { enabled: false },
    heartbeatInterval: 5,
    heartbeatTimeout: 15,
    // stop and destroyService wait for in-flight calls: no request is dropped by a reload or a SIGTERM
    tracking: { enabled: true, shutdownTimeout: graceMs },
    logger: {
      type: 'Pino',
      options: {
        level: env.LOG_LEVEL,
        pino: pinoLoggerOptions(env, nodeID),
      },
    },
    logLevel: env.LOG_LEVEL as BrokerOptions['logLevel'],
    // spans go to an OpenTelemetry collector (OTLP/HTTP) when OTEL_ENABLED=true
    tracing: tracingOptions(env),
    metrics: extras.metricsReporter ? { enabled: true, reporter: [extras.metricsReporter as never] } : { enabled: false },
    // moleculer's middlewares, listed here only to swap its Metrics for a cheaper one
    internalMiddlewares: false,
    middlewares: withWorkspaceGuard(brokerMiddlewares()) as BrokerOptions['middlewares'],
    validator: new Validators.Fastest({
      useNewCustomCheckFunction: true,
      defaults: { number: { convert: true }, boolean: { convert: true }, date: { convert: true } },
    } as never),
    // the kernel's main.ts owns SIGTERM/SIGINT, to drain before the broker stops
    skipProcessEventRegistration: true,
  };
}

/**
 * The archived-workspace guard goes just before the Validator in the list, so it wraps the
 * handler inside it: it sees validated parameters, and runs before the action's hooks.
 */
function withWorkspaceGuard<T>(middlewares: T[]): T[] {
  const at = middlewares.indexOf('Validator' as T);
  return [...middlewares.slice(0, at), workspaceWriteGuard as T, ...middlewares.slice(at)];
}
