import type { Context } from 'moleculer';
import { defineExecutor } from '../../kernel/executors/define.ts';
import { agentTaskOutcome, startAgentTask } from '../../kernel/executors/agent-task.ts';
import type { ExecuteAnswer, ExecutorJob, ExecutorRun } from '../../kernel/jobs-contract.ts';

interface Goal {
  id: string;
  title: string;
  objective: string;
  agent_id: string | null;
  metrics: { name: string; target: number; unit: string | null; current: number | null; direction: string }[];
}

function prompt(goal: Goal, extra: string | null): string {
  const metrics = goal.metrics.map((m) => `- ${m.name}: target ${m.target}${m.unit ? ` ${m.unit}` : ''} (${m.direction}), last measured ${m.current ?? 'never'}`).join('\n');
  return [
    `Re-measure the metrics of the goal "${goal.title}".`,
    '',
    goal.objective,
    '',
    'Metrics:',
    metrics || '(none)',
    extra ? `\n${extra}` : '',
    '',
    'Find the current value of each metric with your tools. End your answer with one line of JSON and nothing after it:',
    '{"metrics": [{"name": "<metric name>", "current": <number>}]}',
    'Leave out a metric you could not measure.',
  ].join('\n');
}

/** The last `{"metrics": [...]}` object of the agent's report, else null. */
export function measuredValues(report: string | null): Map<string, number> | null {
  const match = report?.match(/\{\s*"metrics"\s*:\s*\[[\s\S]*?\]\s*\}(?![\s\S]*\{\s*"metrics")/);
  if (!match) return null;
  try {
    const parsed = JSON.parse(match[0]) as { metrics: { name?: unknown; current?: unknown }[] };
    return new Map(parsed.metrics.filter((m) => typeof m.name === 'string' && typeof m.current === 'number' && Number.isFinite(m.current)).map((m) => [m.name as string, m.current as number]));
  } catch {
    return null;
  }
}

async function poll(ctx: Context, job: ExecutorJob, run: ExecutorRun): Promise<ExecuteAnswer> {
  const { answer, report } = await agentTaskOutcome(ctx, job, run);
  if (answer.status !== 'succeeded') return answer;
  const values = measuredValues(report);
  if (!values) return { ...answer, status: 'failed', error: { code: 'MEASUREMENT_UNREADABLE', message: 'The agent finished without the {"metrics": [...]} line of measured values.' } };
  const goal = await ctx.call<Goal, unknown>('goals.get', { goal_id: job.goal_id });
  const metrics = goal.metrics.map((m) => (values.has(m.name) ? { ...m, current: values.get(m.name)! } : m));
  await ctx.call('goals.update', { goal_id: goal.id, metrics });
  return { ...answer, output: { measured: Object.fromEntries(values) } };
}

export default defineExecutor(
  {
    name: 'goal_measurement',
    description: "Re-measures a goal's metrics with an agent (the job's, else the goal's owner agent, else the workspace master) and writes the values to the goal.",
    queue: 'celery',
    needs_prompt: false,
    requires: ['goal_id'],
    restartable: false,
  },
  {
    async execute(ctx, job, run) {
      const goal = await ctx.call<Goal, unknown>('goals.get', { goal_id: job.goal_id });
      return startAgentTask(ctx, job, run, prompt(goal, job.payload_message), { title: `Measure: ${goal.title}`, agent_id: goal.agent_id });
    },
    poll,
  },
);
