import type { ServiceBroker } from 'moleculer';
import { findExecutor } from '../../kernel/executors/registry.ts';
import { EXECUTOR_SERVICE_PREFIX, JOB_RUN_JOB, type ExecuteAnswer } from '../../kernel/jobs-contract.ts';
import type { JobQueue, QueueName } from '../../kernel/queue/types.ts';
import { registerJobHandler } from '../../kernel/queue/dispatch.ts';
import { deliverablesFailure } from './deliverables.ts';
import { asCreator, executorJob, executorRun } from './executor-job.ts';
import type { JobStore } from './store/jobs.ts';
import type { RunStore } from './store/runs.ts';
import type { Sql } from './store/sql.ts';
import type { JobRow, RunRow } from './store/types.ts';

type Logger = { warn(...args: unknown[]): void; info(...args: unknown[]): void };

export interface WorkerDeps {
  broker: ServiceBroker;
  sql: Sql;
  jobs: JobStore;
  runs: RunStore;
  queue: JobQueue;
  node: string;
  leaseSeconds: number;
  pauseAfter: number;
  logger: Logger;
  /** after a job changed on its own (paused after failures, deleted after its run) */
  changed(job: { id: string; next_run_at: Date | null; enabled: boolean }): void;
}

const failure = (code: string, message: string): ExecuteAnswer & { status: 'failed' } => ({ status: 'failed', error: { code, message: message.slice(0, 2000) } });

/**
 * The worker side of job runs, on every node that consumes a queue: takes a run id from the
 * queue, claims the committed row (queued -> running, under a lease renewed while the executor
 * starts it), asks the executor, and settles the run or records what it follows (a task, a
 * workflow run) until its outcome is known.
 */
export class RunWorker {
  private readonly unregister: (() => void)[] = [];

  constructor(private readonly deps: WorkerDeps) {}

  consume(queue: QueueName, concurrency: number): void {
    this.unregister.push(registerJobHandler(this.deps.queue, queue, JOB_RUN_JOB, concurrency, (job) => this.run(runIdOfQueueId(job.id))));
  }

  stop(): void {
    for (const off of this.unregister.splice(0)) off();
  }

  /** Puts a committed run on its queue. */
  /**
   * Puts a run on its queue under its own id (idempotent: a queue still holding it adds none),
   * or, for a run started again after its worker died, under `<id>:r<attempts>`: the dead
   * worker's entry may still sit in the queue as active until the queue's stall check frees
   * it, and an entry under the same id would wait for that.
   */
  async enqueue(run: Pick<RunRow, 'id' | 'queue'>, restartOf?: number): Promise<void> {
    await this.deps.queue.enqueue(run.queue ?? 'work', { name: JOB_RUN_JOB, id: restartOf === undefined ? run.id : `${run.id}:r${restartOf}` });
  }

  async run(runId: string): Promise<void> {
    const run = await this.deps.runs.claim(runId, this.deps.node, this.deps.leaseSeconds);
    if (!run) return; // another delivery took it, or it ended
    const job = await this.deps.sql.one<JobRow>('SELECT * FROM jobs WHERE id = $1', [run.job_id]);
    if (!job) return; // deleted meanwhile: its runs went with it
    const renew = setInterval(() => void this.deps.runs.renewLease(run.id, this.deps.leaseSeconds).catch(() => undefined), Math.max(250, (this.deps.leaseSeconds * 1000) / 3));
    let answer: ExecuteAnswer;
    try {
      answer = await this.execute(job, run);
    } finally {
      clearInterval(renew);
    }
    await this.apply(job, run, answer);
  }

  private async execute(job: JobRow, run: RunRow): Promise<ExecuteAnswer> {
    if (!findExecutor(this.deps.broker, job.executor)) return failure('EXECUTOR_NOT_LOADED', `No executor '${job.executor}' is loaded now.`);
    try {
      const since = await this.deps.runs.lastSuccessAt(job.id, run.id);
      return await this.deps.broker.call<ExecuteAnswer, unknown>(`${EXECUTOR_SERVICE_PREFIX}${job.executor}.execute`, { job: executorJob(job), run: executorRun(run, since) }, asCreator(job));
    } catch (err) {
      const e = err as { type?: string; message?: string };
      return failure(e.type ?? 'EXECUTOR_FAILED', e.message ?? 'The executor failed.');
    }
  }

  /** Where a poll or an answer leaves the run: still following something, or settled. */
  async apply(job: JobRow, run: RunRow, answer: ExecuteAnswer): Promise<void> {
    if (answer.status === 'running') {
      await this.deps.runs.started(run.id, answer);
      return;
    }
    await this.settle(run.id, await this.checked(job, run, answer as ExecuteAnswer & { status: 'succeeded' | 'failed' }));
  }

  /** An executor's success holds only when the job's deliverables were written during the run (deliverables.ts), whatever the executor. */
  private async checked(job: JobRow, run: RunRow, answer: ExecuteAnswer & { status: 'succeeded' | 'failed' }): Promise<ExecuteAnswer & { status: 'succeeded' | 'failed' }> {
    if (answer.status !== 'succeeded') return answer;
    const failed = await deliverablesFailure(this.deps.broker, job, run);
    // the refs (task, workflow run, usage) stay: they show what the run produced
    return failed ? { ...answer, status: 'failed', error: failed.error, output: answer.output } : answer;
  }

  async settle(runId: string, answer: ExecuteAnswer & { status: 'succeeded' | 'failed' }): Promise<void> {
    const settled = await this.deps.runs.settle(runId, answer, this.deps.pauseAfter);
    if (!settled) return;
    const { job } = settled;
    if (job.delete_after_run && job.schedule_kind === 'at') {
      await this.deps.sql.exec('DELETE FROM jobs WHERE id = $1', [job.id]);
      this.deps.changed({ id: job.id, next_run_at: null, enabled: false });
      return;
    }
    if (job.paused_now) {
      this.deps.logger.info(`job ${job.id} paused after ${this.deps.pauseAfter} failed runs in a row`);
      this.deps.changed(job);
    }
    if (job.overlap === 'queue') await this.dispatchWaiting(job.id);
  }

  async dispatchWaiting(jobId: string): Promise<void> {
    const next = await this.deps.runs.dispatchNextWaiting(jobId);
    if (next) await this.enqueue(next);
  }

  /**
   * Asks the executor where a run that follows something stands (settled event, or the
   * sweeper). One poll at a time per run (a lease, renewed meanwhile): an executor's poll may
   * write what the run produced (comments, notifications), which must not happen twice.
   */
  async poll(candidate: RunRow): Promise<void> {
    const job = await this.deps.sql.one<JobRow>('SELECT * FROM jobs WHERE id = $1', [candidate.job_id]);
    if (!job || candidate.status !== 'running') return;
    const service = `${EXECUTOR_SERVICE_PREFIX}${job.executor}`;
    if (!findExecutor(this.deps.broker, job.executor)) return; // back later: the sweeper asks again
    const run = await this.deps.runs.claimPoll(candidate.id, this.deps.leaseSeconds);
    if (!run) return; // another poll holds it, or it ended
    const renew = setInterval(() => void this.deps.runs.renewLease(run.id, this.deps.leaseSeconds).catch(() => undefined), Math.max(250, (this.deps.leaseSeconds * 1000) / 3));
    let answer: ExecuteAnswer;
    try {
      const since = await this.deps.runs.lastSuccessAt(job.id, run.id);
      answer = await this.deps.broker.call<ExecuteAnswer, unknown>(`${service}.poll`, { job: executorJob(job), run: executorRun(run, since) }, asCreator(job));
    } catch (err) {
      this.deps.logger.warn(`polling job run ${run.id} failed: ${(err as Error).message}`);
      answer = { status: 'running' };
    } finally {
      clearInterval(renew);
    }
    if (answer.status === 'running') await this.deps.runs.releasePoll(run.id);
    else await this.settle(run.id, await this.checked(job, run, answer as ExecuteAnswer & { status: 'succeeded' | 'failed' }));
  }

  /**
   * Recovery: dispatched runs whose queue job may be lost go back on the queue (idempotent per
   * run id); runs waiting behind a finished one are dispatched; runs whose worker died while
   * starting them are re-queued when their executor is restartable, else failed with the
   * reason; runs following something are polled. Never leaves a run `running` for a dead worker.
   */
  async recover(opts: { stuckSeconds: number; pollSeconds: number }): Promise<{ requeued: number; failed: number; polled: number; dispatched: number }> {
    const out = { requeued: 0, failed: 0, polled: 0, dispatched: 0 };
    for (const run of await this.deps.runs.stuckQueued(opts.stuckSeconds)) {
      await this.enqueue(run);
      out.requeued++;
    }
    for (const jobId of await this.deps.runs.jobsWithFreedWaiting()) {
      await this.dispatchWaiting(jobId);
      out.dispatched++;
    }
    for (const run of await this.deps.runs.lostRunning()) {
      const job = await this.deps.sql.one<JobRow>('SELECT executor FROM jobs WHERE id = $1', [run.job_id]);
      const restartable = job ? findExecutor(this.deps.broker, job.executor)?.restartable === true : false;
      if (restartable) {
        const again = await this.deps.runs.requeue(run.id);
        if (again) {
          await this.enqueue(again, again.attempts);
          out.requeued++;
        }
        continue;
      }
      await this.settle(run.id, failure('WORKER_LOST', `The worker running this job (${run.worker ?? 'unknown'}) stopped while starting it (killed or crashed); it was not started again, since its executor '${job?.executor ?? '?'}' could then do the work twice.`));
      out.failed++;
    }
    for (const run of await this.deps.runs.dueForPoll(opts.pollSeconds)) {
      await this.poll(run);
      out.polled++;
    }
    return out;
  }
}

/** The run id of a queue entry's id (`<run id>` or `<run id>:r<n>`). */
function runIdOfQueueId(queueId: string): string {
  return queueId.split(':')[0];
}
