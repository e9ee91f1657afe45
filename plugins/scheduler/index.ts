import type { Context, ServiceSchema } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { JOBS_CHANGED_EVENT, type JobsChanged } from '../../kernel/jobs-contract.ts';
import { PREPARE_LEAD_MS, Scheduler, type Logger } from './scheduler.ts';

type SchedulerService = { scheduler: Scheduler; broker: Context['broker']; logger: Logger };

/**
 * The scheduler (role `control` only): see scheduler.ts. Several control nodes may run it at
 * once; each due fire is still committed once (jobs.fireDue takes due jobs with SKIP LOCKED and
 * a slot is one run row). On start it mirrors the workflow schedule bindings as jobs.
 */
export default {
  name: 'scheduler',
  dependencies: ['jobs'],
  events: {
    [JOBS_CHANGED_EVENT](this: SchedulerService, ctx: Context<JobsChanged>) {
      this.scheduler.jobsChanged(ctx.params.next_run_at);
    },
  },
  created(this: SchedulerService) {
    const env = kernelOf(this.broker).config.env;
    this.scheduler = new Scheduler({ broker: this.broker, tickSeconds: env.SCHEDULER_TICK_SECONDS, sweepSeconds: env.SCHEDULER_SWEEP_SECONDS, prepareLeadMs: PREPARE_LEAD_MS, logger: this.logger });
  },
  started(this: SchedulerService) {
    // not awaited: the node's packages finish loading after this service has started
    void kernelOf(this.broker).packagesLoaded.then(async () => {
      await this.broker.call('jobs.syncBindings', {}).catch((err: Error) => this.logger.warn(`workflow schedule bindings not mirrored: ${err.message}`));
      this.scheduler.start();
    });
  },
  async stopped(this: SchedulerService) {
    await this.scheduler.stop();
  },
} as unknown as ServiceSchema;
