import { completedTasks, section } from './gather.ts';
import { resultLine, verdicts } from './results.ts';
import { endWith, unreadable, type RuntimeJob } from './runtime-job.ts';

const LABEL = { met: 'met', partly: 'partly met', not_met: 'not met' } as const;

/** Judges each task completed since the last run against what it asked for; the verdict goes on the task as a comment. */
export const outcomeEvaluation: RuntimeJob = {
  name: 'outcome_evaluation',
  title: 'Outcome evaluation',
  description: 'Evaluates each task of the workspace completed since the last evaluation against what it asked for, and comments the verdict on the task.',
  async brief(ctx, job, since, ownTitle) {
    const done = await completedTasks(ctx, job.workspace_id, since, ownTitle);
    if (!done.length) return { nothing: `No task of the workspace completed since ${since.toISOString()}.` };
    return {
      prompt: [
        `Evaluate the outcome of each task below, completed in this workspace since ${since.toISOString()}: did the result meet what the task asked for? Look at its comments and files with your tools where you can; do not guess.`,
        section('Completed tasks', done),
        endWith('{"verdicts": [{"task_id": "<id>", "verdict": "met" | "partly" | "not_met", "reason": "<one or two sentences>"}]}', 'One entry per task above, by its id.'),
      ].join('\n\n'),
    };
  },
  async persist(ctx, job, run, report, since, ownTitle) {
    const done = await completedTasks(ctx, job.workspace_id, since, ownTitle);
    const found = verdicts(resultLine(report, 'verdicts'), new Set(done.map((t) => t.id)));
    if (!found) return unreadable('EVALUATION_UNREADABLE', 'verdicts');
    for (const v of found) {
      const body = `**Outcome evaluation: ${LABEL[v.verdict]}.** ${v.reason}\n\n_Job "${job.name}", run ${run.id}._`;
      await ctx.call('tasks.addLog', { id: v.task_id, body });
    }
    return { status: 'succeeded', output: { evaluated: found.map(({ task_id, verdict }) => ({ task_id, verdict })), unjudged: done.filter((t) => !found.some((v) => v.task_id === t.id)).map((t) => t.id) } };
  },
};
