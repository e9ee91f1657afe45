import type { ServiceBroker } from 'moleculer';
import type { Sequelize } from 'sequelize';
import type { Config } from '../config/load.ts';
import type { KeyValueStore } from './kv/types.ts';
import type { JobQueue } from './queue/types.ts';
import type { ObjectStore } from './objects/types.ts';

/**
 * The shared stores a node hands to its capability packages. A package reads them with
 * `kernelOf(this.broker)` in its service hooks; it never opens connections of its own.
 */
export interface KernelContext {
  config: Config;
  db: Sequelize;
  /** true when the database has pgvector (embedded PGlite does; plain PostgreSQL may not) */
  hasVector: boolean;
  cache: KeyValueStore;
  queue: JobQueue;
  objects: ObjectStore;
}

const contexts = new WeakMap<ServiceBroker, KernelContext>();

export function attachKernel(broker: ServiceBroker, ctx: KernelContext): void {
  contexts.set(broker, ctx);
}

export function kernelOf(broker: ServiceBroker): KernelContext {
  const ctx = contexts.get(broker);
  if (!ctx) throw new Error('the kernel stores are not ready on this broker yet');
  return ctx;
}
