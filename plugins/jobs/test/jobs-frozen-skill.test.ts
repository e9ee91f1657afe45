import test from 'ava';
import { useAgentKernel } from '../../../test/helpers/agent-kernel.ts';
import { eventually } from '../../../test/helpers/eventually.ts';
import type { RecordedRequest, StaticReply } from '../../../test/helpers/scripted-provider.ts';
import { kernelOf } from '../../../kernel/context.ts';

/**
 * The frozen execution skill of agent jobs: generated in the background on create and on an
 * edit of the prompt (job.freeze on the celery queue), stored for the job version it was made
 * from, and used by runs once ready; a failed generation leaves runs on the prompt.
 */
const EXTRA = [['plugins', 'jobs'], ['plugins', 'scheduler'], ['executors', 'agent']] as const;
const kit = useAgentKernel(test, 'jobs_frozen_skill', { SCHEDULER_SWEEP_SECONDS: '1', JOBS_POLL_SECONDS: '1' }, EXTRA);

const T = 'owner-token';
let ctx: { workspace_id: string; agent_id: string };
let setup: Promise<void> | undefined;

const isSkillRequest = (req: RecordedRequest) => JSON.stringify(req.body).includes('execution skill');
/** what a skill request answers, chosen by the prompt it carries; agent turns answer "Done." */
let skillFor: (prompt: string) => StaticReply | Promise<StaticReply> = () => ({ error: 400, message: 'no skill scripted' });
const skillRequests: string[] = [];

test.beforeEach(async () => {
  setup ??= kit.ak.setup(T).then((c) => void (ctx = c));
  await setup;
  kit.ak.provider.replies.length = 0;
  for (let i = 0; i < 20; i++) {
    kit.ak.provider.replies.push((req) => {
      if (!isSkillRequest(req)) return { text: 'Done.' };
      const text = JSON.stringify(req.body);
      skillRequests.push(text);
      return skillFor(text);
    });
  }
});

const job = async (id: string) => (await kit.ak.call(`/api/v1/jobs/${id}`, { token: T })).body;
const skillSettled = (id: string, version: number) =>
  eventually(async () => {
    const j = await job(id);
    return j.version === version && ['ready', 'failed'].includes(j.frozen_skill.status) ? j : undefined;
  }, { timeoutMs: 20_000 });
const createJob = async (payload: string) => {
  const res = await kit.ak.call('/api/v1/jobs', { method: 'POST', token: T, json: { name: 'Digest', payload_message: payload, agent_id: ctx.agent_id, workspace_id: ctx.workspace_id, schedule: { kind: 'every', every_seconds: 86400 } } });
  if (res.status !== 201) throw new Error(res.text);
  t0check(res.body);
  return res.body;
};
const t0check = (body: { frozen_skill: { status: string } }) => {
  if (body.frozen_skill.status !== 'pending') throw new Error(`a new agent job's skill should be pending, not ${body.frozen_skill.status}`);
};
const runTask = async (jobId: string) => {
  const fired = (await kit.ak.call(`/api/v1/jobs/${jobId}/run_now`, { method: 'POST', token: T, json: {} })).body;
  const run = await eventually(async () => {
    const r = (await kit.ak.call(`/api/v1/jobs/${jobId}/runs/${fired.id}`, { token: T })).body;
    return r.status === 'succeeded' || r.status === 'failed' ? r : undefined;
  }, { timeoutMs: 60_000 });
  return run;
};
const celeryIdle = () =>
  eventually(async () => {
    const c = await kitQueue().counts('celery');
    return c.waiting === 0 && c.active === 0 && c.delayed === 0;
  });
const kitQueue = () => kernelOf(kit.ak.kernel.broker).queue;

test.serial('the skill reaches ready with the generated text, made from the prompt, and a run works from it', async (t) => {
  skillFor = (req) => (req.includes('Count the open invoices') ? { text: '## Objective\nSKILL-INVOICES-1\n## Steps\n1. Count.' } : { error: 400, message: 'unexpected prompt' });
  const created = await createJob('Count the open invoices.');
  const ready = await skillSettled(created.id, created.version);
  t.like(ready?.frozen_skill, { status: 'ready', error: null });
  t.regex(ready.frozen_skill.text, /SKILL-INVOICES-1/);
  const run = await runTask(created.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  t.regex(run.task.description, /^## Objective\nSKILL-INVOICES-1/);
  t.false(run.task.description.includes('Count the open invoices'), 'the run used the skill, not the prompt');
});

test.serial('an edit of the prompt regenerates the skill; a generation for the older version that ends later is discarded', async (t) => {
  let release!: (r: StaticReply) => void;
  const held = new Promise<StaticReply>((resolve) => (release = resolve));
  skillFor = (req) => (req.includes('Version one') ? held : req.includes('Version two') ? { text: 'SKILL-V2' } : { error: 400, message: 'unexpected prompt' });
  const created = await createJob('Version one of the request.');
  await eventually(async () => skillRequests.some((r) => r.includes('Version one')));
  const edited = await kit.ak.call(`/api/v1/jobs/${created.id}`, { method: 'PUT', token: T, json: { payload_message: 'Version two of the request.' } });
  t.is(edited.status, 200, edited.text);
  t.is(edited.body.frozen_skill.status, 'pending');
  const v2 = await skillSettled(created.id, created.version + 1);
  t.like(v2?.frozen_skill, { status: 'ready', text: 'SKILL-V2' });
  // the version-one generation answers only now: it must not replace the newer skill
  release({ text: 'SKILL-V1-STALE' });
  await celeryIdle();
  const after = await job(created.id);
  t.like(after.frozen_skill, { status: 'ready', text: 'SKILL-V2' });
  const run = await runTask(created.id);
  t.regex(run.task.description, /^SKILL-V2/);
});

test.serial('an edit that leaves the prompt alone keeps the skill; a failed generation falls back to the prompt with the reason', async (t) => {
  skillFor = (req) => (req.includes('Fallback please') ? { error: 400, message: 'the model refused the request' } : { error: 400, message: 'unexpected prompt' });
  const created = await createJob('Fallback please: list the overdue tasks.');
  const failed = await skillSettled(created.id, created.version);
  t.is(failed?.frozen_skill.status, 'failed');
  t.is(failed.frozen_skill.text, null);
  t.regex(failed.frozen_skill.error, /refused/);
  const asked = skillRequests.length;
  const renamed = await kit.ak.call(`/api/v1/jobs/${created.id}`, { method: 'PUT', token: T, json: { name: 'Overdue' } });
  t.is(renamed.body.frozen_skill.status, 'failed', 'a rename does not ask for a new skill');
  const run = await runTask(created.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  t.regex(run.task.description, /^Fallback please: list the overdue tasks\./);
  await celeryIdle();
  t.is(skillRequests.length, asked);
});
