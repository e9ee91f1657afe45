import test from 'ava';
import { useAgentKernel } from '../../../test/helpers/agent-kernel.ts';
import { eventually } from '../../../test/helpers/eventually.ts';

/**
 * The file-deliverable contract holds for every executor, checked by the jobs worker once the
 * executor answers success: each named file must exist afterwards and be written during the run.
 */
const EXTRA = [['plugins', 'jobs'], ['plugins', 'scheduler'], ['executors', 'agent'], ['executors', 'workflow'], ['tools', 'workspace_files'], ['nodes', 'tool']] as const;
const kit = useAgentKernel(test, 'jobs_deliverables', { SCHEDULER_SWEEP_SECONDS: '1', JOBS_POLL_SECONDS: '1' }, EXTRA);

const T = 'owner-token';
let ctx: { workspace_id: string; agent_id: string };
let setup: Promise<void> | undefined;

const every = { kind: 'every', every_seconds: 86400 };
const writeFile = (path: string, content: string) =>
  kit.ak.kernel.broker.call('tool.workspace_files.execute', { arguments: { op: 'write', path, content }, context: { entity_id: 'e-1', user_id: 'u-owner', workspace_id: ctx.workspace_id, agent_id: null, run_id: null, step_id: null, invocation_id: null } }, { meta: { user: { id: 'u-owner', entity_id: 'e-1', role: 'owner' } } });
const createJob = async (body: Record<string, unknown>) => {
  const res = await kit.ak.call('/api/v1/jobs', { method: 'POST', token: T, json: { schedule: every, workspace_id: ctx.workspace_id, ...body } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
};
const runNow = async (jobId: string) => {
  const fired = (await kit.ak.call(`/api/v1/jobs/${jobId}/run_now`, { method: 'POST', token: T, json: {} })).body;
  return eventually(async () => {
    const r = (await kit.ak.call(`/api/v1/jobs/${jobId}/runs/${fired.id}`, { token: T })).body;
    return r.status === 'succeeded' || r.status === 'failed' ? r : undefined;
  }, { timeoutMs: 30_000 });
};
// a frozen skill request gets a plain answer; agent turns take the queue
const agentTurns: object[] = [];
test.beforeEach(async () => {
  setup ??= kit.ak.setup(T, { tools: ['workspace_files'] }).then((c) => void (ctx = c));
  await setup;
  kit.ak.provider.replies.length = 0;
  for (let i = 0; i < 20; i++) kit.ak.provider.replies.push((req) => (JSON.stringify(req.body).includes('execution skill') ? { error: 400, message: 'no skills here' } : (agentTurns.shift() as never) ?? { text: 'Done.' }));
});

test.serial('an agent job whose agent writes the named file succeeds', async (t) => {
  const job = await createJob({ name: 'Weekly report', agent_id: ctx.agent_id, payload_message: 'Write the report.', deliverables: ['reports/weekly.md'] });
  agentTurns.push({ text: '', tool_calls: [{ name: 'workspace_files', arguments: { op: 'write', path: 'reports/weekly.md', content: '# Week' } }] }, { text: 'Written.' });
  const run = await runNow(job.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  t.is(run.task.status, 'completed');
});

test.serial('a file left by an earlier run does not satisfy the contract: the run fails, naming it', async (t) => {
  const job = await createJob({ name: 'Daily notes', agent_id: ctx.agent_id, payload_message: 'Write the notes.', deliverables: ['notes/daily.md'] });
  await writeFile('notes/daily.md', 'yesterday');
  agentTurns.push({ text: 'Nothing to write today.' });
  const run = await runNow(job.id);
  t.is(run?.status, 'failed');
  t.is(run.error.code, 'DELIVERABLE_STALE');
  t.regex(run.error.message, /notes\/daily\.md/);
  t.is(run.task.status, 'completed', 'the task itself completed; the run failed on its contract');
});

/** A manual workflow writing `path` (or not) with the tool node, and a binding of it into the workspace. */
async function binding(writes: string | null): Promise<string> {
  const steps = writes
    ? [{ id: 'start', type: 'trigger', next: ['write'] }, { id: 'write', type: 'tool', config: { tool: 'workspace_files', arguments: { op: 'write', path: writes, content: 'from the workflow' } }, next: [] }]
    : [{ id: 'start', type: 'trigger', next: [] }];
  const wf = await kit.ak.call('/api/v1/workflows', { method: 'POST', token: T, json: { name: `Export ${writes ?? 'nothing'}`, trigger_type: 'manual', steps } });
  if (wf.status !== 201) throw new Error(wf.text);
  const b = await kit.ak.call('/api/v1/workflows/bindings', { method: 'POST', token: T, json: { workflow_id: wf.body.id, workspace_id: ctx.workspace_id, trigger: { type: 'manual' } } });
  if (b.status !== 201) throw new Error(b.text);
  return b.body.id;
}

test.serial('a workflow job created directly with config.binding_id runs that binding; the file it writes makes it succeed', async (t) => {
  const bindingId = await binding('exports/data.csv');
  const job = await createJob({ name: 'Export', executor: 'workflow', config: { binding_id: bindingId }, deliverables: ['exports/data.csv'] });
  t.is(job.source, 'api');
  const run = await runNow(job.id);
  t.is(run?.status, 'succeeded', JSON.stringify(run?.error));
  const wfRun = (await kit.ak.call(`/api/v1/workflows/runs/${run.workflow_run_id}`, { token: T })).body;
  t.like(wfRun, { binding_id: bindingId, trigger_type: 'schedule', status: 'completed' });
});

test.serial('a workflow job whose run does not write the named file fails with DELIVERABLE_MISSING', async (t) => {
  const job = await createJob({ name: 'Export nothing', executor: 'workflow', config: { binding_id: await binding(null) }, deliverables: ['exports/none.csv'] });
  const run = await runNow(job.id);
  t.is(run?.status, 'failed');
  t.is(run.error.code, 'DELIVERABLE_MISSING');
  t.regex(run.error.message, /exports\/none\.csv/);
  t.truthy(run.workflow_run_id, 'what the run produced stays linked');
});
