import type { Context } from 'moleculer';
import { defineExecutor } from '../../kernel/executors/define.ts';
import type { CheckProblem, ExecuteAnswer, ExecutorJob } from '../../kernel/jobs-contract.ts';
import { isNotFound } from '../../kernel/references.ts';

interface WorkflowRun {
  status: string;
  output: unknown;
  error: { code?: string; message?: string } | null;
}

async function check(ctx: Context, job: ExecutorJob): Promise<CheckProblem[]> {
  const bindingId = String(job.config.binding_id);
  let binding: { workspace_id: string; enabled: boolean };
  try {
    binding = await ctx.call('workflows.bindingInfo', { binding_id: bindingId });
  } catch (err) {
    if (isNotFound(err)) return [{ field: 'config.binding_id', message: `No workflow binding with id '${bindingId}'.`, type: 'reference', status: 404 }];
    throw err;
  }
  if (job.workspace_id && binding.workspace_id !== job.workspace_id) return [{ field: 'config.binding_id', message: `The binding '${bindingId}' deploys into another workspace than workspace_id.`, type: 'reference' }];
  return [];
}

export default defineExecutor(
  {
    name: 'workflow',
    description: 'Starts a run of the configured workflow binding (config.binding_id) with trigger type schedule, and records its outcome.',
    queue: 'work',
    needs_prompt: false,
    restartable: false,
    config: { type: 'object', properties: { binding_id: { type: 'string', format: 'uuid', minLength: 36, maxLength: 36 } }, required: ['binding_id'], additionalProperties: false },
  },
  {
    check,
    async execute(ctx, job, run): Promise<ExecuteAnswer> {
      const started = await ctx.call<{ run_id: string }, unknown>('workflows.startScheduledRun', { binding_id: String(job.config.binding_id), scheduled_for: run.scheduled_for, job_id: job.id, job_run_id: run.id });
      return { status: 'running', workflow_run_id: started.run_id };
    },
    async poll(ctx, _job, run): Promise<ExecuteAnswer> {
      let wf: WorkflowRun;
      try {
        wf = await ctx.call<WorkflowRun, unknown>('workflows.getRun', { run_id: run.workflow_run_id });
      } catch (err) {
        if (isNotFound(err)) return { status: 'failed', error: { code: 'WORKFLOW_RUN_GONE', message: `The workflow run ${run.workflow_run_id} was deleted.` } };
        throw err;
      }
      if (wf.status === 'completed') return { status: 'succeeded', workflow_run_id: run.workflow_run_id, output: wf.output };
      if (wf.status === 'failed' || wf.status === 'cancelled') return { status: 'failed', workflow_run_id: run.workflow_run_id, error: { code: wf.error?.code ?? `WORKFLOW_${wf.status.toUpperCase()}`, message: wf.error?.message ?? `The workflow run ended ${wf.status}.` } };
      return { status: 'running' };
    },
  },
);
