import { defineExecutor } from '../../kernel/executors/define.ts';
import { agentTaskOutcome, startAgentTask } from '../../kernel/executors/agent-task.ts';
import type { ExecutorJob, ExecutorRun } from '../../kernel/jobs-contract.ts';
import { briefing } from './briefing.ts';
import { chatInsights } from './chat-insights.ts';
import { outcomeEvaluation } from './outcome-evaluation.ts';
import type { RuntimeJob } from './runtime-job.ts';
import { strategistReview } from './strategist-review.ts';

/**
 * The workspace runtime jobs (see README.md): each reads the workspace's records for the period
 * since the job's last successful run (the first run: the day before its slot), hands them to
 * the agent (the job's, else the workspace master) on a task, and stores what the agent answered
 * where a person looks for it.
 */
const FIRST_LOOKBACK_MS = 24 * 3600_000;

const sinceOf = (run: ExecutorRun): Date => (run.last_success_at ? new Date(run.last_success_at) : new Date(Date.parse(run.scheduled_for) - FIRST_LOOKBACK_MS));
const titleOf = (r: RuntimeJob, job: ExecutorJob): string => `${r.title}: ${job.name}`;
type InWorkspace = ExecutorJob & { workspace_id: string };

function executor(r: RuntimeJob) {
  return defineExecutor(
    { name: r.name, description: r.description, queue: 'celery', needs_prompt: false, requires: ['workspace_id'], restartable: false },
    {
      async execute(ctx, job, run) {
        const brief = await r.brief(ctx, job as InWorkspace, sinceOf(run), titleOf(r, job));
        if ('nothing' in brief) return { status: 'succeeded', output: { note: brief.nothing } };
        const prompt = brief.prompt + (job.payload_message ? `\n\nAlso: ${job.payload_message}` : '');
        return startAgentTask(ctx, job, run, prompt, { title: titleOf(r, job) });
      },
      async poll(ctx, job, run) {
        const { answer, report } = await agentTaskOutcome(ctx, job, run);
        if (answer.status !== 'succeeded') return answer;
        try {
          return { ...answer, ...(await r.persist(ctx, job as InWorkspace, run, report, sinceOf(run), titleOf(r, job))) };
        } catch (err) {
          // the agent's work is done; what could not be stored is said, not retried into duplicates
          return { ...answer, status: 'failed', output: { report: report?.slice(0, 20_000) ?? null }, error: { code: 'RESULT_NOT_STORED', message: `The agent finished, but its result could not be stored: ${(err as Error).message}`.slice(0, 2000) } };
        }
      },
    },
  );
}

export default [strategistReview, briefing, outcomeEvaluation, chatInsights].map(executor);
