/**
 * A kernel node loading only the package roots in AUTH_TEST_ROOTS, run as its own process by
 * test/auth-first-start.test.ts to read what it prints. Prints "READY <api url>" once serving;
 * stops cleanly on SIGTERM.
 */
import { join } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { startKernel } from '../kernel/bootstrap.ts';

const roots = (process.env.AUTH_TEST_ROOTS ?? '').split(',').filter(Boolean);
if (!roots.length) throw new Error('AUTH_TEST_ROOTS is not set');
const config = loadConfig(process.env, join(process.env.DATA_DIR ?? '.', '.env'));
const kernel = await startKernel(config, { roots });
console.log(`READY ${kernel.apiUrl}`);
process.once('SIGTERM', () => {
  kernel.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
