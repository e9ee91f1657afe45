import test from 'ava';
import { useAgentKernel } from '../../../test/helpers/agent-kernel.ts';
import { eventually } from '../../../test/helpers/eventually.ts';
import type { RecordedRequest, StaticReply } from '../../../test/helpers/scripted-provider.ts';

/**
 * The workspace runtime jobs through the scheduler's run path and the scripted provider: the
 * workspace's records reach the agent's prompt, and what the agent answers is stored where a
 * person looks (task comments, a notification, activity entries).
 */
const EXTRA = [['plugins', 'jobs'], ['plugins', 'scheduler'], ['plugins', 'goals'], ['plugins', 'chat'], ['plugins', 'notifications'], ['executors', 'workspace_runtime']] as const;
const kit = useAgentKernel(test, 'workspace_runtime', { SCHEDULER_SWEEP_SECONDS: '1', JOBS_POLL_SECONDS: '1' }, EXTRA);

const T = 'owner-token';
let ctx: { workspace_id: string; agent_id: string };
let setup: Promise<void> | undefined;
const call = (path: string, init: Parameters<typeof kit.ak.call>[1] = {}) => kit.ak.call(path, { token: T, ...init });
const post = async (path: string, json: unknown, status = 201) => {
  const res = await call(path, { method: 'POST', json });
  if (res.status !== status) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.body;
};

/** The agent's first turn on a job task answers `reply` when its prompt has `marker`; everything else gets "Done.". */
let onBrief: { marker: string; reply: (req: RecordedRequest) => StaticReply } | null = null;
const prompts: string[] = [];
test.beforeEach(async () => {
  setup ??= kit.ak.setup(T).then((c) => void (ctx = c));
  await setup;
  kit.ak.provider.replies.length = 0;
  for (let i = 0; i < 30; i++) {
    kit.ak.provider.replies.push((req) => {
      const text = JSON.stringify(req.body);
      prompts.push(text);
      if (onBrief && text.includes(onBrief.marker) && !text.includes('"role":"tool"')) {
        const { reply } = onBrief;
        onBrief = null;
        return reply(req);
      }
      return { text: 'Done.' };
    });
  }
});

const completedTask = async (title: string, description: string) => {
  const task = await post('/api/v1/tasks', { title, description, workspace_id: ctx.workspace_id, assignee: { type: 'user', id: 'u-owner' } });
  await post(`/api/v1/tasks/${task.id}/move`, { status: 'in_progress' }, 200);
  await post(`/api/v1/tasks/${task.id}/move`, { status: 'completed' }, 200);
  return task;
};
const createJob = (executor: string, name: string) => post('/api/v1/jobs', { name, executor, agent_id: ctx.agent_id, workspace_id: ctx.workspace_id, schedule: { kind: 'every', every_seconds: 86400 } });
const runNow = async (jobId: string) => {
  const fired = await post(`/api/v1/jobs/${jobId}/run_now`, {}, 202);
  return eventually(async () => {
    const r = (await call(`/api/v1/jobs/${jobId}/runs/${fired.id}`)).body;
    return r.status === 'succeeded' || r.status === 'failed' ? r : undefined;
  }, { timeoutMs: 30_000 });
};
const promptWith = (marker: string) => prompts.find((p) => p.includes(marker));

test.serial('outcome_evaluation: the completed tasks reach the prompt; each verdict becomes a comment on its task', async (t) => {
  const task = await completedTask('Send the invoice batch', 'Send all 40 March invoices to the customers.');
  const job = await createJob('outcome_evaluation', 'Weekly outcomes');
  onBrief = { marker: 'Send all 40 March invoices', reply: () => ({ text: `Checked the batch.\n{"verdicts": [{"task_id": "${task.id}", "verdict": "partly", "reason": "Only 30 of the 40 invoices went out."}]}` }) };
  const run = await runNow(job.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  const prompt = promptWith('Send all 40 March invoices')!;
  t.truthy(prompt, 'the task reached the model');
  t.true(prompt.includes(task.id), 'with its id');
  const logs = (await call(`/api/v1/tasks/${task.id}/logs`)).body.items as { body: string }[];
  t.true(logs.some((l) => /Outcome evaluation: partly met\.\*\* Only 30 of the 40 invoices went out\./.test(l.body)), JSON.stringify(logs));
  t.deepEqual(run.output.evaluated, [{ task_id: task.id, verdict: 'partly' }]);
  // the next run looks only at what completed since this one: nothing, so no agent run and no new comment
  const again = await runNow(job.id);
  t.is(again?.status, 'succeeded');
  t.regex(again.output.note, /No task of the workspace completed since/);
  t.is(again.task_id, null);
  t.is((await call(`/api/v1/tasks/${task.id}/logs`)).body.items.length, logs.length);
});

test.serial('briefing: tasks and goals reach the prompt; the briefing is a notification and the run output', async (t) => {
  await completedTask('Renew the domain', 'Renew example.org for two years.');
  await post('/api/v1/goals', { workspace_id: ctx.workspace_id, objective: 'Reach 500 newsletter subscribers', metrics: [{ name: 'Subscribers', target: 500 }] });
  const job = await createJob('briefing', 'Morning briefing');
  onBrief = { marker: 'Renew example.org', reply: () => ({ text: '# Briefing\nThe domain is renewed; subscribers are not measured yet.' }) };
  const run = await runNow(job.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  const prompt = prompts.find((p) => p.includes('Renew example.org'))!;
  t.true(prompt.includes('Reach 500 newsletter subscribers'), 'the goals reached the model');
  const inbox = (await call(`/api/v1/notifications?workspace_id=${ctx.workspace_id}`)).body.items as { id: string; title: string; message: string }[];
  const note = inbox.find((n) => n.title === 'Briefing: Morning briefing');
  t.truthy(note, JSON.stringify(inbox));
  t.regex(note!.message, /The domain is renewed/);
  t.like(run.output, { notification_id: note!.id });
  t.regex(run.output.briefing, /The domain is renewed/);
});

test.serial('strategist_review: goals and plans reach the prompt; the recommendations are an activity entry', async (t) => {
  await post('/api/v1/goals', { workspace_id: ctx.workspace_id, objective: 'Cut support response time to 2 hours', metrics: [{ name: 'Hours', target: 2 }] });
  const job = await createJob('strategist_review', 'Monthly strategy');
  onBrief = { marker: 'Cut support response time', reply: () => ({ text: 'Support is slow.\n{"recommendations": [{"title": "Add a second support shift", "detail": "Mornings wait longest."}]}' }) };
  const run = await runNow(job.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  const activity = (await call(`/api/v1/workspaces/${ctx.workspace_id}/activity?kind=strategy.recommendations`)).body.items as { summary: string; data: any }[];
  t.is(activity.length, 1);
  t.regex(activity[0].summary, /1 recommendation \(first: Add a second support shift\)/);
  t.like(activity[0].data, { origin: 'strategist_review', job_id: job.id, run_id: run.id, recommendations: [{ title: 'Add a second support shift', detail: 'Mornings wait longest.' }] });
});

test.serial('strategist_review without its JSON line fails the run with the reason and stores nothing', async (t) => {
  const job = await createJob('strategist_review', 'Sloppy strategy');
  onBrief = { marker: 'Review this workspace as its strategist', reply: () => ({ text: 'All good, nothing to add.' }) };
  const before = (await call(`/api/v1/workspaces/${ctx.workspace_id}/activity?kind=strategy.recommendations`)).body.total;
  const run = await runNow(job.id);
  t.is(run?.status, 'failed');
  t.is(run.error.code, 'REVIEW_UNREADABLE');
  t.is((await call(`/api/v1/workspaces/${ctx.workspace_id}/activity?kind=strategy.recommendations`)).body.total, before);
});

test.serial('chat_insight_extraction: the workspace conversation reaches the prompt; each insight is an activity entry with its origin', async (t) => {
  const said = await call(`/api/v1/workspaces/${ctx.workspace_id}/chat/messages`, { method: 'POST', json: { message: 'We only ship orders on Tuesdays and Fridays.' } });
  t.true(said.status < 300, said.text);
  await eventually(async () => {
    const thread = (await call(`/api/v1/workspaces/${ctx.workspace_id}/chat/messages`)).body;
    return thread.items?.some((m: { role: string; status: string }) => m.role === 'assistant' && m.status === 'complete');
  });
  const job = await createJob('chat_insight_extraction', 'Nightly insights');
  onBrief = { marker: 'Tuesdays and Fridays', reply: () => ({ text: '{"insights": [{"kind": "fact", "text": "Orders ship on Tuesdays and Fridays only."}]}' }) };
  const run = await runNow(job.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  t.truthy(prompts.find((p) => p.includes('Tuesdays and Fridays') && p.includes('durable insights')), 'the conversation reached the model');
  const entries = (await call(`/api/v1/workspaces/${ctx.workspace_id}/activity?kind=insight.extracted`)).body.items as { summary: string; data: any }[];
  t.is(entries.length, 1);
  t.is(entries[0].summary, 'fact: Orders ship on Tuesdays and Fridays only.');
  t.like(entries[0].data, { origin: 'chat_insight_extraction', insight_kind: 'fact', job_id: job.id, run_id: run.id });
});
