import { defineExecutor } from '../../kernel/executors/define.ts';
import { agentTaskOutcome, startAgentTask } from '../../kernel/executors/agent-task.ts';

/** What each workspace runtime job asks of the agent; `since` is the previous slot the run looks back to. */
const BRIEFS: Record<string, { title: string; description: string; brief: (since: string) => string }> = {
  strategist_review: {
    title: 'Strategist review',
    description: "Reviews the workspace's goals, plans and open work, and proposes what to change.",
    brief: () =>
      "Review this workspace as its strategist: its goals and their metrics, the plans in flight and the open tasks. Say which goals are off track and why, what is blocked, and propose the three most useful next steps (create tasks for them with your tools if you can). Report: findings, then proposals.",
  },
  briefing: {
    title: 'Briefing',
    description: 'Writes a briefing of what happened in the workspace since the last one.',
    brief: (since) => `Write a short briefing of this workspace since ${since}: tasks completed, failed and waiting on someone, decisions made, and what needs attention next. Use your tools to look; do not guess. Report: the briefing in Markdown.`,
  },
  outcome_evaluation: {
    title: 'Outcome evaluation',
    description: 'Evaluates the outcomes of the work finished since the last evaluation.',
    brief: (since) => `Evaluate the outcomes of the tasks of this workspace completed since ${since}: for each, did the result meet what the task asked for? Note the ones that did not and why. Report: a list of task, verdict (met / partly / not met) and reason.`,
  },
  chat_insight_extraction: {
    title: 'Chat insight extraction',
    description: "Extracts durable insights (facts, preferences, decisions) from the workspace's recent conversations.",
    brief: (since) => `Read this workspace's conversations since ${since} and extract durable insights: facts about the business, preferences of the people, decisions taken, lessons learned. Only what is stated, never guessed. Report: one line per insight, with its kind (fact, preference, decision, learning).`,
  },
};

const DAY = 24 * 3600_000;

export default Object.entries(BRIEFS).map(([name, b]) =>
  defineExecutor(
    { name, description: b.description, queue: 'celery', needs_prompt: false, requires: ['workspace_id'], restartable: false },
    {
      execute: (ctx, job, run) => {
        const since = new Date(Date.parse(run.scheduled_for) - DAY).toISOString();
        const brief = b.brief(since) + (job.payload_message ? `\n\nAlso: ${job.payload_message}` : '');
        return startAgentTask(ctx, job, run, brief, { title: `${b.title}: ${job.name}` });
      },
      poll: async (ctx, job, run) => (await agentTaskOutcome(ctx, job, run)).answer,
    },
  ),
);
