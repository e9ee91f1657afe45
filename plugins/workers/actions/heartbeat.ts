import type { Context, ServiceBroker } from 'moleculer';
import { kernelOf } from '../../../kernel/context.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { recordHeartbeat } from '../heartbeat-store.ts';
import { HEARTBEAT_PARAMS, WORKER_SCHEMA } from '../schemas.ts';
import { mergeWorkers } from '../worker-view.ts';

interface HeartbeatParams {
  worker_id: string;
  roles: string[];
  queues: string[];
  concurrency: Record<string, number>;
  version: string;
  hostname?: string;
  in_flight: number;
}

/**
 * `POST /api/v1/workers/heartbeat`: records one worker's heartbeat. The gateway authenticates
 * it as a worker (`auth: 'worker'`: `Authorization: Bearer <WORKER_TOKEN>`, compared in
 * constant time; 401 when missing or wrong, 403 when WORKER_TOKEN is not set).
 */
export const heartbeatAction = {
  rest: { method: 'POST' as const, path: '/heartbeat' },
  auth: 'worker' as const,
  summary: 'Record a worker heartbeat (Authorization: Bearer <WORKER_TOKEN>)',
  description:
    'Authenticated with the deployment\'s WORKER_TOKEN as a bearer token, not a user token. 401 when the token is missing or wrong; ' +
    '403 FORBIDDEN when WORKER_TOKEN is not configured.',
  tags: ['operations'],
  params: HEARTBEAT_PARAMS,
  response: WORKER_SCHEMA,
  async handler(this: { broker: ServiceBroker }, ctx: Context<HeartbeatParams>) {
    const kernel = kernelOf(this.broker);
    const { worker_id, roles, queues, concurrency, version, hostname, in_flight } = ctx.params;
    const strays = Object.keys(concurrency).filter((queue) => !queues.includes(queue));
    if (strays.length) {
      throw ERRORS.VALIDATION_FAILED('concurrency names a queue the worker does not list in queues.', strays.map((queue) => ({
        field: `concurrency.${queue}`,
        message: `The queue '${queue}' is not in queues.`,
        type: 'unknownQueue',
      })));
    }
    const record = await recordHeartbeat(kernel.db, { worker_id, roles, queues, concurrency, version, hostname: hostname ?? null, in_flight, meta: { source: 'heartbeat' } });
    const [view] = mergeWorkers([], [record], { now: new Date(), staleSeconds: kernel.config.env.WORKER_STALE_SECONDS });
    return view;
  },
};
