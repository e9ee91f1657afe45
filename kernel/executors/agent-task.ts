import type { Context } from 'moleculer';
import { AGENTS_MASTER_ACTION, type AgentView } from '../agents-contract.ts';
import type { ExecuteAnswer, ExecutorJob, ExecutorRun, TokenUsage } from '../jobs-contract.ts';
import { isNotFound } from '../references.ts';

/**
 * Job executors that run an agent do it the way people do: a task assigned to the agent, which
 * the agent runtime picks up (`task.run.requested`), runs durably on the `work` queue and moves
 * to completed or failed. The job run follows the task; its outcome, token usage and the agent
 * run come from the task and the run it produced.
 */

const failed = (code: string, message: string): ExecuteAnswer => ({ status: 'failed', error: { code, message } });

/** The agent a job runs: its own, else the workspace's master agent. */
async function agentFor(ctx: Context, job: ExecutorJob, preferred: string | null = null): Promise<string | null> {
  if (job.agent_id ?? preferred) return job.agent_id ?? preferred;
  if (!job.workspace_id) return null;
  const master = await ctx.call<AgentView | null, { workspace_id: string }>(AGENTS_MASTER_ACTION, { workspace_id: job.workspace_id });
  return master?.id ?? null;
}

/** The deliverables line every agent job prompt ends with when the job names files. */
function deliverablesNote(job: ExecutorJob): string {
  if (!job.deliverables.length) return '';
  return `\n\nThis run succeeds only if, when you finish, these files exist in the workspace (write them with the workspace_files tool): ${job.deliverables.map((p) => `\`${p}\``).join(', ')}.`;
}

/** Starts the agent on a new task with `prompt` (the job's frozen skill or prompt, or an executor's own). */
export async function startAgentTask(ctx: Context, job: ExecutorJob, run: ExecutorRun, prompt: string, opts: { title?: string; agent_id?: string | null } = {}): Promise<ExecuteAnswer> {
  const agentId = await agentFor(ctx, job, opts.agent_id ?? null);
  if (!agentId) return failed('NO_AGENT', 'The job names no agent and its workspace has no master agent to run it.');
  const title = `${opts.title ?? job.name} (${run.trigger === 'run_now' ? 'run now' : run.scheduled_for})`.slice(0, 500);
  const task = await ctx.call<{ id: string }, unknown>('tasks.create', { title, description: (prompt + deliverablesNote(job)).slice(0, 100_000), workspace_id: job.workspace_id, assignee: { type: 'agent', id: agentId } });
  return { status: 'running', task_id: task.id };
}

interface AgentRunItem {
  id: string;
  status: string;
  output: { text?: string; usage?: TokenUsage } | null;
  error: { code?: string; message?: string } | null;
}

export interface AgentTaskOutcome {
  answer: ExecuteAnswer;
  /** the agent's final report when the task completed */
  report: string | null;
}

/** Where the job run's task stands: running, or settled with the agent run's usage and report. */
export async function agentTaskOutcome(ctx: Context, _job: ExecutorJob, run: ExecutorRun): Promise<AgentTaskOutcome> {
  if (!run.task_id) return { answer: failed('NO_TASK', 'The run has no task to follow.'), report: null };
  let task: { status: string };
  try {
    task = await ctx.call<{ status: string }, unknown>('tasks.get', { id: run.task_id });
  } catch (err) {
    if (isNotFound(err)) return { answer: failed('TASK_GONE', `The task ${run.task_id} of this run was deleted.`), report: null };
    throw err;
  }
  if (!['completed', 'failed', 'cancelled'].includes(task.status)) return { answer: { status: 'running' }, report: null };
  const runs = await ctx.call<{ items: AgentRunItem[] }, unknown>('workflows.agentRuns', { task_id: run.task_id, limit: 1 }).catch(() => ({ items: [] as AgentRunItem[] }));
  const agentRun = runs.items[0];
  const refs = { task_id: run.task_id, workflow_run_id: agentRun?.id ?? null, usage: agentRun?.output?.usage ?? null };
  const report = typeof agentRun?.output?.text === 'string' ? agentRun.output.text : null;
  if (task.status !== 'completed') {
    const message = agentRun?.error?.message ?? `The task ended ${task.status}.`;
    return { answer: { ...refs, ...failed(agentRun?.error?.code ?? `TASK_${task.status.toUpperCase()}`, message) }, report };
  }
  return { answer: { ...refs, status: 'succeeded', output: { report: report?.slice(0, 20_000) ?? null } }, report };
}
