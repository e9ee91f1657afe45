import type { Context } from 'moleculer';
import type { ExecuteAnswer, ExecutorJob, ExecutorRun } from '../../kernel/jobs-contract.ts';

/** One workspace runtime job: what it reads for the agent, and where it puts what the agent answered. */
export interface RuntimeJob {
  name: string;
  title: string;
  description: string;
  /** The agent's brief from the workspace's data since `since`; a string answer without data is `{nothing}`: the run succeeds without an agent. */
  brief(ctx: Context, job: ExecutorJob & { workspace_id: string }, since: Date, ownTitle: string): Promise<{ prompt: string } | { nothing: string }>;
  /** Stores the result of an agent run that completed with `report`; answers the run's outcome (its output, or why it failed). */
  persist(ctx: Context, job: ExecutorJob & { workspace_id: string }, run: ExecutorRun, report: string | null, since: Date, ownTitle: string): Promise<Pick<ExecuteAnswer, 'status' | 'output' | 'error'>>;
}

export const unreadable = (code: string, what: string): Pick<ExecuteAnswer, 'status' | 'error'> => ({ status: 'failed', error: { code, message: `The agent finished without the JSON line of ${what} its brief asked for.` } });

/** How a brief asks for the result line. */
export const endWith = (example: string, rule: string): string => `\n\nEnd your answer with one line of JSON and nothing after it:\n${example}\n${rule}`;
