import { hostname } from 'node:os';
import type { ServiceBroker } from 'moleculer';
import type { Env } from '../../config/load.ts';
import type { HeartbeatInput } from './heartbeat-store.ts';
import { concurrencyFor, queuesOfRoles, readNodeMetadata } from './node-metadata.ts';

/**
 * Calls this node's services are handling plus queue jobs it is running. Calls come from
 * moleculer's context tracking (`tracking.enabled` in moleculer.config.ts keeps each local
 * service's `_trackedContexts`), jobs from the kernel queue's in-flight set when reachable.
 * Either missing counts as 0. A list request counts itself.
 */
export function inFlightOf(broker: ServiceBroker, queue?: unknown): number {
  let calls = 0;
  for (const service of broker.services as unknown as { _trackedContexts?: unknown }[]) {
    if (Array.isArray(service._trackedContexts)) calls += service._trackedContexts.length;
  }
  const jobs = (queue as { inFlight?: { size?: unknown } } | undefined)?.inFlight?.size;
  return calls + (typeof jobs === 'number' && jobs >= 0 ? jobs : 0);
}

/**
 * This node's own heartbeat: from the broker's node metadata when the kernel sets it, else
 * from this node's configuration (ROLES, WORKER_*_CONCURRENCY), so it is right either way.
 */
export function describeThisNode(broker: ServiceBroker, env: Env, inFlight: number): HeartbeatInput {
  const fromMetadata = readNodeMetadata((broker as unknown as { metadata?: unknown }).metadata);
  const roles = fromMetadata.roles ?? [...env.ROLES];
  const queues = fromMetadata.queues ?? queuesOfRoles(roles);
  const concurrency = fromMetadata.concurrency ?? concurrencyFor(queues, { celery: env.WORKER_CONTROL_CONCURRENCY, work: env.WORKER_WORK_CONCURRENCY }) ?? {};
  return {
    worker_id: broker.nodeID,
    roles,
    queues,
    concurrency,
    version: fromMetadata.version ?? null,
    hostname: hostname(),
    in_flight: inFlight,
    meta: { source: 'kernel', pid: process.pid, metadata: fromMetadata.roles ? 'broker' : 'config' },
  };
}
