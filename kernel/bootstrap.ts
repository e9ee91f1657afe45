import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Server, AddressInfo } from 'node:net';
import { ServiceBroker, type Service } from 'moleculer';
import type { Config } from '../config/load.ts';
import { brokerOptions } from '../moleculer.config.ts';
import { CapabilityLoader } from './capabilities/loader.ts';
import { BUILTIN_ROOTS, discoverPackageDirs } from './capabilities/discover.ts';
import { watchPackageRoots } from './capabilities/watcher.ts';
import { capabilitiesService, capabilityPackagesService } from './capabilities/services.ts';
import type { Role } from './capabilities/manifest.ts';
import { apiGatewaySchema } from './gateway/api-service.ts';
import { kernelRoutes } from './gateway/kernel-routes.ts';
import { GatewayPrometheusReporter } from './gateway/metrics-reporter.ts';
import { startWebServer } from './gateway/web-server.ts';
import { HealthMonitor } from './health/monitor.ts';
import { openStores, type Stores } from './stores.ts';
import { attachKernel } from './context.ts';
import { runMigrations } from './db/migrations.ts';

const ROOT = resolve(import.meta.dirname, '..');
/** the kernel's own tables (the gateway's Idempotency-Keys), migrated like a package's */
const KERNEL_MIGRATIONS = { name: 'kernel', dir: resolve(import.meta.dirname, 'idempotency', 'migrations') };
export const KERNEL_VERSION: string = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).version;

export interface Kernel {
  broker: ServiceBroker;
  config: Config;
  loader: CapabilityLoader;
  health: HealthMonitor;
  stores?: Stores;
  /** base URL of the API listener (role api only), e.g. http://127.0.0.1:8000 */
  apiUrl?: string;
  webUrl?: string;
  /** drains in-flight requests and jobs (up to SHUTDOWN_GRACE_SECONDS), then closes everything */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** package roots; default: plugins, channels, tools, nodes, sandbox of the project, plus CAPABILITY_PATHS */
  roots?: string[];
  webRoot?: string;
}

/**
 * Starts one node: broker, gateway (role api), stores, then the capability packages its ROLES
 * select. /health answers from the first moment; /health/ready turns 200 once stores are open,
 * migrations applied and packages loaded.
 */
export async function startKernel(config: Config, opts: StartOptions = {}): Promise<Kernel> {
  const env = config.env;
  const roles = env.ROLES as Role[];
  const isApi = roles.includes('api');
  const metrics = env.METRICS_ENABLED && isApi ? new GatewayPrometheusReporter() : undefined;
  const broker = new ServiceBroker(brokerOptions(config, { metricsReporter: metrics, version: KERNEL_VERSION }));
  const logger = broker.getLogger('kernel');
  const health = new HealthMonitor();
  let stores: Stores | undefined;
  const loader = new CapabilityLoader({
    broker,
    roles,
    kernelVersion: KERNEL_VERSION,
    disabled: env.CAPABILITY_DISABLED,
    beforeStart: async (pkg) => {
      if (!pkg.migrationsDir) return;
      if (!stores) throw new Error('stores are not open');
      const { applied } = await runMigrations(stores.db, { name: pkg.name, dir: pkg.migrationsDir });
      if (applied.length) logger.info(`Applied ${applied.length} migration(s) of ${pkg.name}: ${applied.join(', ')}`);
    },
  });
  let gateway: Service | undefined;
  // aliases follow the registry at once for local changes (moleculer-web debounces them)
  loader.setAfterChange(() => (gateway as unknown as { regenerateAllAutoAliases?: { flush?(): void } } | undefined)?.regenerateAllAutoAliases?.flush?.());
  const roots = opts.roots ?? [...BUILTIN_ROOTS.map((r) => resolve(ROOT, r)), ...env.CAPABILITY_PATHS.map((p) => resolve(p))];

  broker.createService(capabilitiesService(loader));
  if (isApi) {
    broker.createService(capabilityPackagesService());
    gateway = broker.createService(
      apiGatewaySchema({
        port: env.API_PORT,
        host: env.API_HOST,
        bodyLimit: env.BODY_LIMIT,
        uploadLimitBytes: env.UPLOAD_LIMIT_BYTES,
        corsOrigins: env.CORS_ORIGINS,
        rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
        gate: loader.gate,
        kernelRoutes: kernelRoutes({ broker, health, metrics, version: KERNEL_VERSION }),
        accessLog: ['info', 'debug', 'trace'].includes(env.LOG_LEVEL),
        idempotencyTtlSeconds: env.IDEMPOTENCY_TTL_SECONDS,
        requestTimeoutMs: env.REQUEST_TIMEOUT_SECONDS * 1000,
      }),
    );
  }
  health.register('packages', async () => {
    const failed = loader.list().filter((p) => p.state === 'failed' || p.state === 'reload_failed');
    if (failed.length) throw new Error(`package(s) failed to load: ${failed.map((p) => `${p.name} (${p.error?.message})`).join('; ')}`);
    return { loaded: loader.list().filter((p) => p.state === 'loaded').map((p) => p.name) };
  });

  await broker.start();
  let web: Server | undefined;
  let apiUrl: string | undefined;
  let webUrl: string | undefined;
  if (gateway) {
    const port = ((gateway as unknown as { server: Server }).server.address() as AddressInfo).port;
    const host = env.API_HOST === '0.0.0.0' ? '127.0.0.1' : env.API_HOST;
    apiUrl = `http://${host}:${port}`;
    web = await startWebServer({
      root: opts.webRoot ?? resolve(ROOT, 'web', 'dist'), host: env.API_HOST, port: env.WEB_PORT, apiUrl,
      publicOrigin: new URL(env.PUBLIC_BASE_URL).origin, devServerUrl: env.WEB_DEV_SERVER_URL || undefined,
    });
    webUrl = `http://${host}:${(web.address() as AddressInfo).port}`;
    logger.info(`API on ${apiUrl}, web on ${webUrl}`);
  }

  let watcher: { close(): Promise<void> } | undefined;
  const stop = async () => {
    health.setReady(false, 'stopping');
    await watcher?.close();
    await loader.close();
    await new Promise<void>((done) => (web ? web.close(() => done()) : done()));
    await stores?.queue.drain(env.SHUTDOWN_GRACE_SECONDS * 1000).catch(() => undefined);
    await broker.stop();
    await stores?.close();
  };

  try {
    health.setReady(false, 'opening stores');
    stores = await openStores(config, health, (m) => logger.info(m));
    await runMigrations(stores.db, KERNEL_MIGRATIONS);
    let loaded!: () => void;
    const packagesLoaded = new Promise<void>((resolve) => (loaded = resolve));
    attachKernel(broker, { config, db: stores.db, hasVector: stores.hasVector, cache: stores.cache, queue: stores.queue, objects: stores.objects, packagesLoaded });
    health.setReady(false, 'loading capability packages');
    await loader.loadAll(discoverPackageDirs(roots));
    loaded();
    if (env.HOT_RELOAD) {
      watcher = await watchPackageRoots(roots, {
        changed: (dir) => void loader.load(dir).catch(() => undefined),
        removed: (dir) => void loader.unload(dir).catch(() => undefined),
      });
    }
    health.setReady(true, 'ready');
  } catch (err) {
    logger.error(`Start-up failed: ${(err as Error).message}`);
    await stop().catch(() => undefined);
    throw err;
  }
  return { broker, config, loader, health, stores, apiUrl, webUrl, stop };
}
