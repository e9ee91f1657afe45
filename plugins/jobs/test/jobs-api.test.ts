import test from 'ava';
import { useAgentKernel } from '../../../test/helpers/agent-kernel.ts';
import { eventually } from '../../../test/helpers/eventually.ts';

const EXTRA = [['plugins', 'jobs'], ['plugins', 'scheduler'], ['plugins', 'goals'], ['plugins', 'chat'], ['plugins', 'notifications'], ['executors', 'agent'], ['executors', 'workflow'], ['executors', 'goal_measurement'], ['executors', 'workspace_runtime'], ['tools', 'workspace_files'], ['tools', 'schedule_job']] as const;
const kit = useAgentKernel(test, 'jobs_api', { SCHEDULER_SWEEP_SECONDS: '1', JOBS_POLL_SECONDS: '1' }, EXTRA);

const T = 'owner-token';
const ak = new Proxy({} as typeof kit.ak, { get: (_, key) => (kit.ak as never)[key] });
let ctx: { workspace_id: string; agent_id: string };
let setup: Promise<void> | undefined;
test.beforeEach(async () => {
  // every model call (frozen skills, agent turns) gets a plain answer: agent runs complete
  setup ??= ak.setup(T).then((c) => {
    ctx = c;
    for (let i = 0; i < 200; i++) ak.provider.replies.push({ text: 'Done.' });
  });
  await setup;
});

const cronJob = (extra: Record<string, unknown> = {}) => ({ name: 'Daily digest', schedule: { kind: 'cron', cron: '30 2 * * *', timezone: 'America/New_York' }, payload_message: 'Summarise the open tasks.', workspace_id: ctx.workspace_id, ...extra });
const jobCount = async () => (await ak.call('/api/v1/jobs', { token: T })).body.counts.all as number;

test.serial('create a cron job: next fire in its zone, defaults, and the next N fire times on request', async (t) => {
  const res = await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: cronJob() });
  t.is(res.status, 201, res.text);
  t.like(res.body, { executor: 'agent', enabled: true, status: 'enabled', overlap: 'skip', attention: false, consecutive_failures: 0, source: 'api', schedule: { kind: 'cron', cron: '30 2 * * *', timezone: 'America/New_York' } });
  t.truthy(res.body.next_run_at);
  const got = await ak.call(`/api/v1/jobs/${res.body.id}?next=3`, { token: T });
  t.is(got.status, 200);
  t.is(got.body.next_fire_times.length, 3);
  t.is(got.body.next_fire_times[0], got.body.next_run_at);
  for (const at of got.body.next_fire_times) t.regex(at, /T0[67]:30:00.000Z$/); // 02:30 EST or EDT
  // the frozen execution skill is generated in the background: the save answers before it (jobs-frozen-skill.test.ts follows it)
  t.is(res.body.frozen_skill.status, 'pending');
});

const bad: [string, Record<string, unknown>, string][] = [
  ['a 6-field cron', { schedule: { kind: 'cron', cron: '0 0 9 * * *' } }, 'schedule.cron'],
  ['minute 61', { schedule: { kind: 'cron', cron: '61 * * * *' } }, 'schedule.cron'],
  ['a step of 0', { schedule: { kind: 'cron', cron: '*/0 * * * *' } }, 'schedule.cron'],
  ['nonsense', { schedule: { kind: 'cron', cron: 'every monday' } }, 'schedule.cron'],
  ['an unknown zone', { schedule: { kind: 'cron', cron: '0 9 * * *', timezone: 'Mars/Olympus' } }, 'schedule.timezone'],
  ['every below the minimum', { schedule: { kind: 'every', every_seconds: 59 } }, 'schedule.every_seconds'],
  ['at in the past', { schedule: { kind: 'at', at: '2020-01-01T00:00:00Z' } }, 'schedule.at'],
  ['at that is no date', { schedule: { kind: 'at', at: '2030-02-30T10:00:00Z' } }, 'schedule.at'],
  ['an executor that is not loaded', { executor: 'teleport' }, 'executor'],
  ['the skill executor (skills do not exist yet)', { executor: 'skill' }, 'executor'],
  ['delete_after_run on a cron job', { delete_after_run: true }, 'delete_after_run'],
  ['a deliverable path with ..', { deliverables: ['../etc/passwd'] }, 'deliverables[0]'],
  ['no prompt for an agent job', { payload_message: null }, 'payload_message'],
  ['an unknown field', { colour: 'red' }, 'colour'],
  ['a field of another schedule kind', { schedule: { kind: 'every', every_seconds: 3600, cron: '* * * * *' } }, 'schedule.cron'],
  ['config the agent executor does not take', { config: { x: 1 } }, 'config'],
];

for (const [what, change, field] of bad) {
  test.serial(`422 naming ${field} for ${what}; nothing stored`, async (t) => {
    const before = await jobCount();
    const res = await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: { ...cronJob(), ...change } });
    t.is(res.status, 422, res.text);
    t.is(res.headers.get('content-type')?.split(';')[0], 'application/problem+json');
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), JSON.stringify(res.body.errors));
    if (what.includes('skill')) t.regex(res.text, /skills do not exist/);
    t.is(await jobCount(), before);
  });
}

test.serial("another entity's context link is 404 naming the field; nothing stored", async (t) => {
  const O = 'other-token';
  const theirs = await ak.setup(O);
  const goal = await ak.call('/api/v1/goals', { method: 'POST', token: O, json: { workspace_id: theirs.workspace_id, objective: 'Theirs', metrics: [{ name: 'n', target: 1 }] } });
  t.is(goal.status, 201, goal.text);
  const chat = await ak.call('/api/v1/chat/message', { method: 'POST', token: O, json: { message: 'Hello' } });
  t.is(chat.status, 200, chat.text);
  const wf = await ak.call('/api/v1/workflows', { method: 'POST', token: O, json: { name: 'Theirs', trigger_type: 'manual', steps: [{ id: 'start', type: 'trigger' }] } });
  const binding = await ak.call('/api/v1/workflows/bindings', { method: 'POST', token: O, json: { workflow_id: wf.body.id, workspace_id: theirs.workspace_id, trigger: { type: 'manual' } } });
  t.is(binding.status, 201, binding.text);
  const before = await jobCount();
  const links: [string, Record<string, unknown>][] = [
    ['workspace_id', { workspace_id: theirs.workspace_id }],
    ['agent_id', { agent_id: theirs.agent_id }],
    ['conversation_id', { conversation_id: chat.body.conversation_id }],
    ['goal_id', { goal_id: goal.body.id }],
    ['config.binding_id', { executor: 'workflow', payload_message: null, config: { binding_id: binding.body.id } }],
  ];
  for (const [field, change] of links) {
    const res = await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: cronJob(change) });
    t.is(res.status, 404, `${field}: ${res.text}`);
    t.is(res.headers.get('content-type')?.split(';')[0], 'application/problem+json');
    t.is(res.body.field, field);
  }
  t.is(await jobCount(), before);
  const rows = await ak.kernel.stores!.db.query('SELECT count(*)::int AS n FROM jobs');
  t.deepEqual(rows[0], [{ n: before }]);
});

test.serial("another entity's job is 404 on every route", async (t) => {
  const mine = (await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: cronJob({ name: 'Mine' }) })).body;
  const O = 'other-token';
  t.is((await ak.call(`/api/v1/jobs/${mine.id}`, { token: O })).status, 404);
  t.is((await ak.call(`/api/v1/jobs/${mine.id}`, { method: 'PUT', token: O, json: { name: 'x' } })).status, 404);
  t.is((await ak.call(`/api/v1/jobs/${mine.id}/toggle`, { method: 'POST', token: O, json: {} })).status, 404);
  t.is((await ak.call(`/api/v1/jobs/${mine.id}/run_now`, { method: 'POST', token: O, json: {} })).status, 404);
  t.is((await ak.call(`/api/v1/jobs/${mine.id}/runs`, { token: O })).status, 404);
  t.is((await ak.call(`/api/v1/jobs/${mine.id}`, { method: 'DELETE', token: O })).status, 404);
  t.is((await ak.call(`/api/v1/jobs/not-a-uuid`, { token: T })).status, 404);
  t.is((await ak.call(`/api/v1/jobs/${mine.id}`, { token: T })).status, 200);
});

test.serial('update: a bad schedule is refused and the job stays as it was; a good one moves the next fire', async (t) => {
  const job = (await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: cronJob({ name: 'Edit me' }) })).body;
  const refused = await ak.call(`/api/v1/jobs/${job.id}`, { method: 'PUT', token: T, json: { schedule: { kind: 'cron', cron: '61 * * * *' } } });
  t.is(refused.status, 422);
  t.deepEqual((await ak.call(`/api/v1/jobs/${job.id}`, { token: T })).body.schedule, job.schedule);
  const moved = await ak.call(`/api/v1/jobs/${job.id}`, { method: 'PUT', token: T, json: { schedule: { kind: 'every', every_seconds: 3600 } } });
  t.is(moved.status, 200, moved.text);
  t.is(moved.body.schedule.kind, 'every');
  t.is(moved.body.version, job.version + 1);
  t.true(Date.parse(moved.body.next_run_at) - Date.now() <= 3600_000);
});

test.serial('toggle pauses and resumes; list filters by status and carries the counts', async (t) => {
  const job = (await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: cronJob({ name: 'Toggle zebra' }) })).body;
  const paused = await ak.call(`/api/v1/jobs/${job.id}/toggle`, { method: 'POST', token: T, json: {} });
  t.like(paused.body, { enabled: false, status: 'paused', next_run_at: null, paused_reason: 'paused by a user' });
  const list = await ak.call('/api/v1/jobs?status=paused&search=zebra', { token: T });
  t.deepEqual(list.body.items.map((j: { id: string }) => j.id), [job.id]);
  t.is(list.body.counts.paused, 1);
  t.is(list.body.counts.all, 1);
  const resumed = await ak.call(`/api/v1/jobs/${job.id}/toggle`, { method: 'POST', token: T, json: { enabled: true } });
  t.like(resumed.body, { enabled: true, paused_reason: null });
  t.truthy(resumed.body.next_run_at);
  t.is((await ak.call('/api/v1/jobs?status=bogus', { token: T })).status, 422);
});

test.serial('run_now goes through the queue and the worker: the agent runs on a task, the run log shows the outcome', async (t) => {
  const job = (await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: cronJob({ name: 'Now please', agent_id: ctx.agent_id }) })).body;
  const fired = await ak.call(`/api/v1/jobs/${job.id}/run_now`, { method: 'POST', token: T, json: {} });
  t.is(fired.status, 202, fired.text);
  t.like(fired.body, { trigger: 'run_now', status: 'queued' });
  const run = await eventually(async () => {
    const r = (await ak.call(`/api/v1/jobs/${job.id}/runs/${fired.body.id}`, { token: T })).body;
    return r.status === 'succeeded' || r.status === 'failed' ? r : undefined;
  }, { timeoutMs: 30_000 });
  t.is(run?.status, 'succeeded', JSON.stringify(run));
  t.truthy(run.task_id);
  t.is(run.task.status, 'completed');
  t.truthy(run.workflow_run_id);
  t.is(run.execution.status, 'completed');
  t.true(run.timeline.length > 0);
  t.true(run.duration_ms >= 0);
  const after = (await ak.call(`/api/v1/jobs/${job.id}`, { token: T })).body;
  t.like(after, { last_run_status: 'succeeded', consecutive_failures: 0 });
  const log = await ak.call(`/api/v1/jobs/${job.id}/runs`, { token: T });
  t.is(log.body.total, 1);
});

test.serial('a deliverable the agent did not write fails the run, counts a failure and puts the job in attention', async (t) => {
  const job = (await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: cronJob({ name: 'Report file', agent_id: ctx.agent_id, deliverables: ['reports/weekly.md'] }) })).body;
  const fired = (await ak.call(`/api/v1/jobs/${job.id}/run_now`, { method: 'POST', token: T, json: {} })).body;
  const run = await eventually(async () => {
    const r = (await ak.call(`/api/v1/jobs/${job.id}/runs/${fired.id}`, { token: T })).body;
    return r.status === 'succeeded' || r.status === 'failed' ? r : undefined;
  }, { timeoutMs: 30_000 });
  t.is(run?.status, 'failed');
  t.is(run.error.code, 'DELIVERABLE_MISSING');
  const after = (await ak.call(`/api/v1/jobs/${job.id}`, { token: T })).body;
  t.like(after, { consecutive_failures: 1, attention: true, last_run_status: 'failed' });
  const attention = await ak.call('/api/v1/jobs?status=attention', { token: T });
  t.true(attention.body.items.some((j: { id: string }) => j.id === job.id));
});

test.serial('delete removes the job and its run log', async (t) => {
  const job = (await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: cronJob({ name: 'Bye' }) })).body;
  t.is((await ak.call(`/api/v1/jobs/${job.id}`, { method: 'DELETE', token: T })).status, 204);
  t.is((await ak.call(`/api/v1/jobs/${job.id}`, { token: T })).status, 404);
});

test.serial('the schedule_job tool creates a job through the same validation, with its file-deliverable contract', async (t) => {
  const meta = { user: { id: 'u-owner', entity_id: 'e-1', role: 'owner' } };
  const context = { entity_id: 'e-1', user_id: 'u-owner', workspace_id: ctx.workspace_id, agent_id: ctx.agent_id, run_id: null, step_id: null, invocation_id: null };
  const args = { name: 'From the agent', payload_message: 'Write the weekly report.', schedule: { kind: 'cron', cron: '0 9 * * 1', timezone: 'Europe/Berlin' }, deliverables: ['reports/weekly.md'] };
  const job = (await ak.kernel.broker.call('tool.schedule_job.execute', { arguments: args, context }, { meta })) as any;
  t.like(job, { source: 'tool', executor: 'agent', workspace_id: ctx.workspace_id, agent_id: ctx.agent_id, deliverables: ['reports/weekly.md'] });
  t.truthy(job.next_run_at);
  const err = (await t.throwsAsync(ak.kernel.broker.call('tool.schedule_job.execute', { arguments: { ...args, schedule: { kind: 'cron', cron: '61 * * * *' } }, context }, { meta }))) as any;
  t.is(err.type, 'TOOLS_ERR_FAILED');
  t.regex(err.message, /schedule\.cron/);
});

const settledRun = (jobId: string, runId: string) =>
  eventually(async () => {
    const r = (await ak.call(`/api/v1/jobs/${jobId}/runs/${runId}`, { token: T })).body;
    return r.status === 'succeeded' || r.status === 'failed' ? r : undefined;
  }, { timeoutMs: 30_000 });

test.serial('goal_measurement: the agent re-measures the metrics and the goal gets the values', async (t) => {
  const goal = (await ak.call('/api/v1/goals', { method: 'POST', token: T, json: { workspace_id: ctx.workspace_id, objective: 'Grow signups', metrics: [{ name: 'Signups', target: 100 }] } })).body;
  const job = await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: { name: 'Measure signups', executor: 'goal_measurement', goal_id: goal.id, agent_id: ctx.agent_id, workspace_id: ctx.workspace_id, schedule: { kind: 'every', every_seconds: 86400 } } });
  t.is(job.status, 201, job.text);
  ak.provider.replies.unshift({ text: 'Counted them.\n{"metrics": [{"name": "Signups", "current": 42}]}' });
  const fired = (await ak.call(`/api/v1/jobs/${job.body.id}/run_now`, { method: 'POST', token: T, json: {} })).body;
  const run = await settledRun(job.body.id, fired.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  t.deepEqual(run.task.status, 'completed');
  const after = (await ak.call(`/api/v1/goals/${goal.id}`, { token: T })).body;
  t.is(after.metrics[0].current, 42);
  // a goal is required, and another entity's is 404
  t.is((await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: { name: 'x', executor: 'goal_measurement', schedule: { kind: 'every', every_seconds: 86400 } } })).status, 422);
});

test.serial('workspace runtime jobs run the master agent on their own brief', async (t) => {
  const job = await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: { name: 'Morning', executor: 'briefing', workspace_id: ctx.workspace_id, agent_id: ctx.agent_id, schedule: { kind: 'cron', cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' } } });
  t.is(job.status, 201, job.text);
  const fired = (await ak.call(`/api/v1/jobs/${job.body.id}/run_now`, { method: 'POST', token: T, json: {} })).body;
  const run = await settledRun(job.body.id, fired.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  t.regex(run.task.description, /briefing of this workspace for the period since/);
  t.is((await ak.call('/api/v1/jobs', { method: 'POST', token: T, json: { name: 'x', executor: 'strategist_review', schedule: { kind: 'every', every_seconds: 86400 } } })).status, 422);
});

test.serial('a workflow binding with trigger schedule fires from the scheduler, with the same semantics', async (t) => {
  const wf = await ak.call('/api/v1/workflows', { method: 'POST', token: T, json: { name: 'Nightly', trigger_type: 'schedule', steps: [{ id: 'start', type: 'trigger' }] } });
  t.is(wf.status, 201, wf.text);
  const refused = await ak.call('/api/v1/workflows/bindings', { method: 'POST', token: T, json: { workflow_id: wf.body.id, workspace_id: ctx.workspace_id, trigger: { type: 'schedule', schedule: '0 0 9 * * *' } } });
  t.is(refused.status, 422);
  t.true(refused.body.errors.some((e: { field: string }) => e.field === 'trigger.schedule'));
  const binding = await ak.call('/api/v1/workflows/bindings', { method: 'POST', token: T, json: { workflow_id: wf.body.id, workspace_id: ctx.workspace_id, trigger: { type: 'schedule', schedule: '30 2 * * *', timezone: 'Europe/Berlin' } } });
  t.is(binding.status, 201, binding.text);
  const mirrored = await eventually(async () => (await ak.call('/api/v1/jobs?search=' + binding.body.id, { token: T })).body.items[0]);
  t.like(mirrored, { source: 'binding', binding_id: binding.body.id, executor: 'workflow', schedule: { kind: 'cron', cron: '30 2 * * *', timezone: 'Europe/Berlin' } });
  t.is((await ak.call(`/api/v1/jobs/${mirrored.id}`, { method: 'DELETE', token: T })).status, 409);
  await ak.kernel.broker.call('jobs.fireDue', { now: new Date(Date.parse(mirrored.next_run_at) + 100).toISOString() });
  const run = await eventually(async () => {
    const items = (await ak.call(`/api/v1/jobs/${mirrored.id}/runs`, { token: T })).body.items;
    return items[0]?.status === 'succeeded' ? items[0] : undefined;
  }, { timeoutMs: 30_000 });
  t.truthy(run?.workflow_run_id);
  const wfRun = (await ak.call(`/api/v1/workflows/runs/${run.workflow_run_id}`, { token: T })).body;
  t.like(wfRun, { trigger_type: 'schedule', binding_id: binding.body.id, status: 'completed' });
  t.is(wfRun.trigger.scheduled_for, run.scheduled_for);
  await ak.call(`/api/v1/workflows/bindings/${binding.body.id}`, { method: 'DELETE', token: T });
  await eventually(async () => (await ak.call(`/api/v1/jobs/${mirrored.id}`, { token: T })).status === 404);
  t.is((await ak.call(`/api/v1/jobs/${mirrored.id}`, { token: T })).status, 404);
});
