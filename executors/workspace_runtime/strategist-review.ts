import { recordActivity } from '../../kernel/activity.ts';
import { completedTasks, goals, openTasks, plans, section } from './gather.ts';
import { recommendations, resultLine } from './results.ts';
import { endWith, unreadable, type RuntimeJob } from './runtime-job.ts';

/** Reviews goals, plans and work; its recommendations are recorded in the workspace's activity log. */
export const strategistReview: RuntimeJob = {
  name: 'strategist_review',
  title: 'Strategist review',
  description: "Reviews the workspace's goals, plans and work since the last review and records its recommendations in the workspace's activity log.",
  async brief(ctx, job, since, ownTitle) {
    const [gs, ps, done, open] = await Promise.all([goals(ctx, job.workspace_id), plans(ctx, job.workspace_id), completedTasks(ctx, job.workspace_id, since, ownTitle), openTasks(ctx, job.workspace_id, ownTitle)]);
    return {
      prompt: [
        `Review this workspace as its strategist, from the records below (the period since ${since.toISOString()}): which goals are off track and why, what is blocked, which plans stall. Then recommend the most useful next steps (at most five), each concrete enough to act on.`,
        section('Goals', gs),
        section('Plans', ps),
        section('Tasks completed in the period', done),
        section('Open and failed tasks', open),
        endWith('{"recommendations": [{"title": "<one line>", "detail": "<why, and what to do>"}]}', 'Your findings in prose before it.'),
      ].join('\n\n'),
    };
  },
  async persist(ctx, job, run, report) {
    const found = recommendations(resultLine(report, 'recommendations'));
    if (!found) return unreadable('REVIEW_UNREADABLE', 'recommendations');
    await recordActivity(ctx, {
      workspace_id: job.workspace_id,
      kind: 'strategy.recommendations',
      summary: `Strategist review "${job.name}": ${found.length} recommendation${found.length === 1 ? '' : 's'}${found[0] ? ` (first: ${found[0].title})` : ''}`.slice(0, 500),
      data: { origin: 'strategist_review', job_id: job.id, run_id: run.id, recommendations: found },
      actor: { type: 'system', id: `job:${job.id}` },
    });
    return { status: 'succeeded', output: { recommendations: found, report: report?.slice(0, 20_000) ?? null } };
  },
};
