import type { ServiceBroker } from 'moleculer';
import type { Sequelize } from 'sequelize';
import type { Config } from '../config/load.ts';
import type { KeyValueStore } from './kv/types.ts';
import type { JobQueue } from './queue/types.ts';
import type { ObjectStore } from './objects/types.ts';

/**
 * The shared stores a node hands to its capability packages. A package of this repository
 * reads them with `kernelOf(this.broker)`; a package installed from npm, which cannot import
 * this file, reads `this.broker[Symbol.for('wao.kernel')]`. It never opens connections of its own.
 */
export interface KernelContext {
  config: Config;
  db: Sequelize;
  /** true when the database has pgvector (embedded PGlite does; plain PostgreSQL may not) */
  hasVector: boolean;
  cache: KeyValueStore;
  queue: JobQueue;
  objects: ObjectStore;
  /**
   * Settles once the node's start-up packages are all loaded (already settled for a package
   * hot-loaded later). Queue consumers wait for it: a job taken earlier could find the node
   * types, tools or services it needs not yet started on this node.
   */
  packagesLoaded: Promise<void>;
}

export const KERNEL_CONTEXT = Symbol.for('wao.kernel');

type WithKernel = ServiceBroker & { [KERNEL_CONTEXT]?: KernelContext };

export function attachKernel(broker: ServiceBroker, ctx: KernelContext): void {
  (broker as WithKernel)[KERNEL_CONTEXT] = ctx;
}

export function kernelOf(broker: ServiceBroker): KernelContext {
  const ctx = (broker as WithKernel)[KERNEL_CONTEXT];
  if (!ctx) throw new Error('the kernel stores are not ready on this broker yet');
  return ctx;
}
