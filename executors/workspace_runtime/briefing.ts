import { NOTIFICATION_MESSAGE_MAX, NOTIFICATION_TITLE_MAX } from '../../kernel/notifications-contract.ts';
import { completedTasks, goals, openTasks, section } from './gather.ts';
import type { RuntimeJob } from './runtime-job.ts';

/** A briefing of the period: delivered as an in-app notification to the job's creator, and kept as the run's output. */
export const briefing: RuntimeJob = {
  name: 'briefing',
  title: 'Briefing',
  description: "Writes a briefing of the workspace since the last one (tasks completed, open and failed, goals) and delivers it as an in-app notification.",
  async brief(ctx, job, since, ownTitle) {
    const [done, open, gs] = await Promise.all([completedTasks(ctx, job.workspace_id, since, ownTitle), openTasks(ctx, job.workspace_id, ownTitle), goals(ctx, job.workspace_id)]);
    return {
      prompt: [
        `Write a short briefing of this workspace for the period since ${since.toISOString()}, from the records below: what was completed, what failed or waits on someone, how the goals stand, and what needs attention next. Only what the records show. Answer with the briefing in Markdown, nothing else.`,
        section('Tasks completed in the period', done),
        section('Open and failed tasks', open),
        section('Goals', gs),
      ].join('\n\n'),
    };
  },
  async persist(ctx, job, run, report) {
    const text = (report ?? '').trim();
    if (!text) return { status: 'failed', error: { code: 'BRIEFING_EMPTY', message: 'The agent finished without writing the briefing.' } };
    const note = await ctx.call<{ id: string }, unknown>('notifications.create', {
      workspace_id: job.workspace_id,
      recipient_id: job.created_by,
      title: `Briefing: ${job.name}`.slice(0, NOTIFICATION_TITLE_MAX),
      message: text.slice(0, NOTIFICATION_MESSAGE_MAX),
      source: { type: 'job_run', job_id: job.id, run_id: run.id },
    });
    return { status: 'succeeded', output: { briefing: text.slice(0, 20_000), notification_id: note.id } };
  },
};
