import { recordActivity } from '../../kernel/activity.ts';
import { conversations, section } from './gather.ts';
import { insights, resultLine } from './results.ts';
import { endWith, unreadable, type RuntimeJob } from './runtime-job.ts';

/**
 * Extracts durable insights from the workspace's recent conversations. There is no memory
 * subsystem yet: each insight is a workspace activity entry (kind `insight.extracted`, data
 * `origin: chat_insight_extraction`), read at GET /api/v1/workspaces/{id}/activity?kind=insight.extracted.
 */
export const chatInsights: RuntimeJob = {
  name: 'chat_insight_extraction',
  title: 'Chat insight extraction',
  description: "Extracts durable insights (facts, preferences, decisions, learnings) from the workspace's conversations since the last run and stores each as a workspace activity entry.",
  async brief(ctx, job, since) {
    const messages = await conversations(ctx, job.workspace_id, since);
    if (!messages.length) return { nothing: `No conversation message in the workspace since ${since.toISOString()}.` };
    return {
      prompt: [
        `Read these messages of this workspace's conversations (since ${since.toISOString()}) and extract the durable insights: facts about the business, preferences of the people, decisions taken, lessons learned. Only what is stated, never guessed; nothing already obvious from a single task.`,
        section('Messages', messages),
        endWith('{"insights": [{"kind": "fact" | "preference" | "decision" | "learning", "text": "<one sentence>"}]}', 'An empty list when there is nothing durable.'),
      ].join('\n\n'),
    };
  },
  async persist(ctx, job, run, report) {
    const found = insights(resultLine(report, 'insights'));
    if (!found) return unreadable('INSIGHTS_UNREADABLE', 'insights');
    for (const insight of found) {
      await recordActivity(ctx, {
        workspace_id: job.workspace_id,
        kind: 'insight.extracted',
        summary: `${insight.kind}: ${insight.text}`.slice(0, 500),
        data: { origin: 'chat_insight_extraction', insight_kind: insight.kind, text: insight.text, job_id: job.id, run_id: run.id },
        actor: { type: 'system', id: `job:${job.id}` },
      });
    }
    return { status: 'succeeded', output: { insights: found } };
  },
};
