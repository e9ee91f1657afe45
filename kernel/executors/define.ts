import type { Context, ServiceSchema } from 'moleculer';
import { EXECUTOR_NAME_PATTERN, EXECUTOR_SERVICE_PREFIX, type CheckProblem, type ExecuteAnswer, type ExecutorDeclaration, type ExecutorJob, type ExecutorRun } from '../jobs-contract.ts';

export interface ExecutorHandlers {
  execute(ctx: Context, job: ExecutorJob, run: ExecutorRun): Promise<ExecuteAnswer>;
  poll?(ctx: Context, job: ExecutorJob, run: ExecutorRun): Promise<ExecuteAnswer>;
  check?(ctx: Context, job: ExecutorJob): Promise<CheckProblem[]>;
}

const JOB_PARAMS = { job: { type: 'object' } } as const;
const RUN_PARAMS = { job: { type: 'object' }, run: { type: 'object' } } as const;

/**
 * The service of a job executor (kernel/jobs-contract.ts): `executor.<name>` with its
 * declaration in `metadata.executor` and the actions `execute`, and `poll` / `check` when given.
 * A bad declaration throws at import, so the package fails to load with the reason.
 */
export function defineExecutor(declaration: ExecutorDeclaration, handlers: ExecutorHandlers): ServiceSchema {
  if (!EXECUTOR_NAME_PATTERN.test(declaration.name)) throw new Error(`executor name '${declaration.name}' must match ${EXECUTOR_NAME_PATTERN}`);
  if (declaration.queue !== 'work' && declaration.queue !== 'celery') throw new Error(`executor '${declaration.name}': queue must be work or celery`);
  const actions: Record<string, unknown> = {
    execute: { visibility: 'public', params: RUN_PARAMS, handler: (ctx: Context<{ job: ExecutorJob; run: ExecutorRun }>) => handlers.execute(ctx, ctx.params.job, ctx.params.run) },
  };
  if (handlers.poll) actions.poll = { visibility: 'public', params: RUN_PARAMS, handler: (ctx: Context<{ job: ExecutorJob; run: ExecutorRun }>) => handlers.poll!(ctx, ctx.params.job, ctx.params.run) };
  if (handlers.check) actions.check = { visibility: 'public', params: JOB_PARAMS, handler: async (ctx: Context<{ job: ExecutorJob }>) => ({ problems: await handlers.check!(ctx, ctx.params.job) }) };
  return { name: `${EXECUTOR_SERVICE_PREFIX}${declaration.name}`, metadata: { executor: declaration }, actions } as ServiceSchema;
}
