import { loadConfig } from '../../config/load.ts';
import { startKernel } from '../../kernel/bootstrap.ts';

/**
 * The server of bench/tasks.ts: a kernel node loading only the packages under
 * BENCH_PACKAGE_ROOT (the tasks and workspaces packages plus the fixture identity provider),
 * configured from the environment like `npm start`. Stops on SIGTERM.
 */
const root = process.env.BENCH_PACKAGE_ROOT;
if (!root) throw new Error('BENCH_PACKAGE_ROOT must name the folder of packages to load');
const kernel = await startKernel(loadConfig(process.env, '/nonexistent/.env'), { roots: [root] });
const failed = kernel.loader.list().filter((p) => p.state !== 'loaded');
if (failed.length) {
  console.error(`packages failed to load: ${failed.map((p) => `${p.name}: ${p.error?.message}`).join('; ')}`);
  process.exit(1);
}
console.log(`ready ${kernel.apiUrl}`);
process.on('SIGTERM', () => {
  kernel.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
