import { ConfigError, loadConfig } from '../config/load.ts';

/** `npm start`: validate configuration, start this node, drain and exit on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  // imported only after the configuration is valid, so a config error answers at once
  const { startKernel } = await import('./bootstrap.ts');
  const kernel = await startKernel(config);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    kernel.broker.logger.info(`${signal}: draining in-flight work for up to ${config.env.SHUTDOWN_GRACE_SECONDS}s`);
    const force = setTimeout(() => {
      kernel.broker.logger.error('Grace period over; exiting with work still in flight.');
      process.exit(1);
    }, (config.env.SHUTDOWN_GRACE_SECONDS + 5) * 1000);
    force.unref();
    kernel.stop().then(
      () => {
        // let the logger flush its last lines; exit anyway if some handle lingers
        process.exitCode = 0;
        setTimeout(() => process.exit(0), 1000).unref();
      },
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(`Start-up failed: ${err?.message ?? err}`);
  process.exit(1);
});
