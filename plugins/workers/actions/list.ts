import type { Context, ServiceBroker } from 'moleculer';
import { kernelOf } from '../../../kernel/context.ts';
import { listHeartbeats } from '../heartbeat-store.ts';
import { nodeSightings } from '../registry-nodes.ts';
import { inFlightOf } from '../this-node.ts';
import { mergeWorkers } from '../worker-view.ts';
import { LIST_PARAMS, LIST_RESPONSE } from '../schemas.ts';

/**
 * `GET /api/v1/workers`: every node of the cluster (broker registry) and every worker that
 * sent a heartbeat, with status. Workers belong to the deployment, not to a tenant: owners and
 * admins may read the list, members get 403.
 */
export const listAction = {
  rest: 'GET /',
  role: 'admin' as const,
  summary: 'Workers of the cluster: roles, queues, concurrency, version, last heartbeat, in-flight count and status',
  tags: ['operations'],
  params: LIST_PARAMS,
  response: LIST_RESPONSE,
  async handler(this: { broker: ServiceBroker }, ctx: Context<{ limit: number; offset: number }>) {
    const kernel = kernelOf(this.broker);
    const staleSeconds = kernel.config.env.WORKER_STALE_SECONDS;
    const sightings = nodeSightings(this.broker, inFlightOf(this.broker, kernel.queue));
    const workers = mergeWorkers(sightings, await listHeartbeats(kernel.db), { now: new Date(), staleSeconds });
    const { limit, offset } = ctx.params;
    return { items: workers.slice(offset, offset + limit), total: workers.length, limit, offset, stale_after_seconds: staleSeconds };
  },
};
