import test from 'ava';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { api, useKernel } from './helpers/kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { jobsPackagesRoot } from './helpers/jobs-kernel.ts';

/** A job executor package dropped into a watched package root is usable by a job without a restart. */
const pkgs = jobsPackagesRoot();
test.after.always(() => pkgs.remove());
const k = useKernel(test, { label: 'jobs_executor_hot', roots: [pkgs.root], env: { HOT_RELOAD: 'true', SCHEDULER_TICK_SECONDS: '3600', SCHEDULER_SWEEP_SECONDS: '3600' } });

const T = 'owner-token';
const call = (path: string, init: Parameters<typeof api>[2] = {}) => api(k.kernel.apiUrl, path, { token: T, ...init });
const DEFINE = pathToFileURL(join(import.meta.dirname, '..', 'kernel', 'executors', 'define.ts')).href;
const job = { name: 'hot', executor: 'hot_greeting', schedule: { kind: 'every', every_seconds: 3600 } };
const listed = async () => ((await call('/api/v1/jobs/executors')).body.items as { name: string }[]).map((e) => e.name);

test.serial('a new executor package under a watched root is listed, accepted by a job and runs it; removed, it is refused again', async (t) => {
  t.is((await call('/api/v1/jobs', { method: 'POST', json: job })).status, 422, 'not loaded yet');
  const dir = join(pkgs.root, 'executor-hot-greeting');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'executor-hot-greeting', version: '1.0.0', type: 'module', capability: { kind: 'executor', roles: ['api', 'control', 'work'] } }));
  writeFileSync(
    join(dir, 'index.js'),
    `import { defineExecutor } from ${JSON.stringify(DEFINE)};
export default defineExecutor(
  { name: 'hot_greeting', description: 'Greets.', queue: 'celery', needs_prompt: false, restartable: true },
  { execute: async (ctx, job, run) => ({ status: 'succeeded', output: { greeting: 'hello from ' + job.name, trigger: run.trigger } }) },
);\n`,
  );
  t.truthy(await eventually(async () => (await listed()).includes('hot_greeting')), 'the hot-loaded executor is listed');
  const created = await call('/api/v1/jobs', { method: 'POST', json: job });
  t.is(created.status, 201, created.text);
  const fired = await call(`/api/v1/jobs/${created.body.id}/run_now`, { method: 'POST', json: {} });
  t.is(fired.status, 202, fired.text);
  const run = await eventually(async () => {
    const r = (await call(`/api/v1/jobs/${created.body.id}/runs/${fired.body.id}`)).body;
    return r.status === 'succeeded' || r.status === 'failed' ? r : undefined;
  });
  t.like(run, { status: 'succeeded', output: { greeting: 'hello from hot', trigger: 'run_now' } });
  rmSync(dir, { recursive: true, force: true });
  t.true(await eventually(async () => !(await listed()).includes('hot_greeting')), 'the removed executor is gone');
  const refused = await call('/api/v1/jobs', { method: 'POST', json: { ...job, name: 'again' } });
  t.is(refused.status, 422);
  t.true(refused.body.errors.some((e: { field: string }) => e.field === 'executor'));
});
