import test from 'ava';
import { Redis } from 'ioredis';
import { startWorkflowsKernel, runUntil, type WorkflowsKernel } from './workflows-helpers.ts';
import { kernelOf } from '../kernel/context.ts';

/**
 * Redis loses the queue's jobs while the service stays up (a Redis restarted without
 * persistence: the connection drops, comes back, and the keys are gone). The runs' rows are the
 * truth: once the queue reconnects, every run waiting on a timer or pending is queued again at
 * once, not after the sweep's grace (set to an hour here, so only the reconnect can move them).
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NAMESPACE = `wfreconnect${process.pid}`;
const OWNER = 'owner-token';
let k: WorkflowsKernel;
let redis: Redis;

test.before(async () => {
  k = await startWorkflowsKernel('wf_reconnect', {
    env: { REDIS_URL, NAMESPACE, WORKFLOW_SWEEP_SECONDS: '3600', WORKFLOW_LEASE_SECONDS: '600', WORKFLOW_INLINE_WAIT_SECONDS: '0' },
    nodes: ['trigger', 'wait', 'transform'],
  });
  redis = new Redis(`${REDIS_URL}/2`);
});

test.after.always(async () => {
  if (redis) {
    const keys = await redis.keys(`${NAMESPACE}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
  await k?.close();
});

test('runs whose queued jobs Redis lost go on as soon as the queue reconnects', async (t) => {
  const wf = await k.createWorkflow(OWNER, {
    name: 'nap',
    steps: [
      { id: 'start', type: 'trigger', next: ['nap'] },
      { id: 'nap', type: 'wait', config: { wait_type: 'timer', seconds: 2 }, next: ['after'] },
      { id: 'after', type: 'transform', config: { set: { woke: true } }, next: [] },
    ],
  });
  const runIds: string[] = [];
  for (let i = 0; i < 5; i++) {
    const started = await k.call(`/api/v1/workflows/${wf.id}/run`, { method: 'POST', token: OWNER, json: { input: { i } } });
    t.is(started.status, 202, started.text);
    runIds.push(started.body.run_id);
  }
  for (const id of runIds) await runUntil(k, OWNER, id, ['paused']);

  // what a Redis restarted without persistence leaves: no keys, and a dropped connection
  const keys = await redis.keys(`${NAMESPACE}:*`);
  t.true(keys.length > 0, 'the timers were queued in Redis');
  await redis.del(...keys);
  const queue = kernelOf(k.kernel.broker).queue as unknown as { commands: { client: Redis } };
  queue.commands.client.disconnect(true);

  for (const id of runIds) {
    const run = await runUntil(k, OWNER, id, ['completed', 'failed'], 30_000);
    t.is(run.status, 'completed', id);
  }
});
