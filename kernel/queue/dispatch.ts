import type { JobHandler, JobQueue, QueueName } from './types.ts';

/**
 * One consumer per queue and process, dispatching each job by its name to the package that
 * registered that name: workflows (`workflow.run`, agent runs included), scheduled jobs and
 * whatever a hot-loaded package adds share the `work` and `celery` queues. A package that is
 * reloaded registers its name again (the newest handler wins); one that is unloaded
 * unregisters it, and a job of a name nobody serves fails its try (the queue keeps it failed,
 * and durable rows let a sweeper re-enqueue it once the package is back).
 *
 *   const stop = registerJobHandler(queue, 'work', 'workflow.run', env.WORKER_WORK_CONCURRENCY, (job) => engine.execute(job.id));
 *   // on stop: stop();
 */

interface Dispatcher {
  handlers: Map<string, JobHandler>;
}

const DISPATCHERS = Symbol.for('wao.queue.dispatchers');

function dispatcherOf(queue: JobQueue, name: QueueName, concurrency: number): Dispatcher {
  const holder = queue as unknown as { [DISPATCHERS]?: Map<QueueName, Dispatcher> };
  holder[DISPATCHERS] ??= new Map();
  const existing = holder[DISPATCHERS].get(name);
  if (existing) return existing;
  const dispatcher: Dispatcher = { handlers: new Map() };
  holder[DISPATCHERS].set(name, dispatcher);
  queue.process(name, concurrency, async (job) => {
    const handler = dispatcher.handlers.get(job.name);
    if (!handler) throw new Error(`no package on this node handles '${job.name}' jobs of the ${name} queue`);
    await handler(job);
  });
  return dispatcher;
}

/**
 * Serves jobs named `jobName` from `queueName` in this process. The first registration for a
 * queue starts consuming it with `concurrency` (the queue's setting: WORKER_WORK_CONCURRENCY or
 * WORKER_CONTROL_CONCURRENCY); later ones share that consumer. Returns the unregistration.
 */
export function registerJobHandler(queue: JobQueue, queueName: QueueName, jobName: string, concurrency: number, handler: JobHandler): () => void {
  const dispatcher = dispatcherOf(queue, queueName, concurrency);
  dispatcher.handlers.set(jobName, handler);
  return () => {
    if (dispatcher.handlers.get(jobName) === handler) dispatcher.handlers.delete(jobName);
  };
}

/** The job names this process serves on a queue (for diagnostics and tests). */
export function servedJobNames(queue: JobQueue, queueName: QueueName): string[] {
  const holder = queue as unknown as { [DISPATCHERS]?: Map<QueueName, Dispatcher> };
  return [...(holder[DISPATCHERS]?.get(queueName)?.handlers.keys() ?? [])];
}
