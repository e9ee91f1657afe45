/**
 * A separate worker process for the durability test: a kernel node with the roles of ROLES
 * (normally `work`) that loads exactly the packages under WF_ROOT. Prints "WORKER READY"
 * once it consumes the queue. The test kills it with SIGKILL in the middle of a run.
 */
import { join } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { startKernel } from '../kernel/bootstrap.ts';

const root = process.env.WF_ROOT;
if (!root) throw new Error('WF_ROOT is required');
const config = loadConfig(process.env, join(root, '.env-none'));
const kernel = await startKernel(config, { roots: [root] });
console.log('WORKER READY');
process.on('SIGTERM', () => {
  void kernel.stop().finally(() => process.exit(0));
});
