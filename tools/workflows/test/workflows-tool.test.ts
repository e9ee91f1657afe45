import test from 'ava';
import { join } from 'node:path';
import { linearWorkflow, runUntil, startWorkflowsKernel, type WorkflowsKernel } from '../../../test/workflows-helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const OWNER = { id: 'u-owner', entity_id: 'e-1', role: 'owner' };
const OTHER = { id: 'u-other', entity_id: 'e-2', role: 'owner' };

let k: WorkflowsKernel;
let wsA: string;
let wsB: string;
let bindingA: string;
let bindingB: string;

test.before(async () => {
  k = await startWorkflowsKernel('tool_workflows', { nodes: ['trigger', 'transform', 'end'] });
  const record = await k.kernel.loader.load(join(ROOT, 'tools', 'workflows'));
  if (record.state !== 'loaded') throw new Error(`tools/workflows did not load: ${record.error?.message}`);
  wsA = await k.createWorkspace('owner-token');
  wsB = await k.createWorkspace('owner-token');
  const wf = await k.createWorkflow('owner-token', linearWorkflow());
  const bind = async (workspace_id: string) => {
    const res = await k.call('/api/v1/workflows/bindings', { method: 'POST', token: 'owner-token', json: { workflow_id: wf.id, workspace_id, trigger: 'manual' } });
    if (res.status !== 201) throw new Error(`binding create answered ${res.status}: ${res.text}`);
    return res.body.id as string;
  };
  bindingA = await bind(wsA);
  bindingB = await bind(wsB);
});
test.after.always(async () => {
  await k?.close();
});

function exec(args: Record<string, unknown>, user: typeof OWNER, workspace_id: string | null, meta: Record<string, unknown> = {}): Promise<any> {
  const context = { entity_id: user.entity_id, user_id: user.id, workspace_id, agent_id: null, run_id: null, step_id: null, invocation_id: 'call-1' };
  return k.kernel.broker.call('tool.workflows.execute', { arguments: args, context }, { meta: { ...meta, user } });
}

async function failure(t: any, p: Promise<unknown>, type = 'TOOLS_ERR_FAILED'): Promise<any> {
  const err = await t.throwsAsync(p);
  t.is(err?.type, type);
  return err;
}

test('start a binding run of the workspace, wait for it, and read it back', async (t) => {
  const done = await exec({ op: 'start_binding_run', binding_id: bindingA, input: { name: 'ada' }, wait: true }, OWNER, wsA);
  t.like(done, { status: 'completed', workspace_id: wsA, binding_id: bindingA, owner_id: 'u-owner' });
  const run = await exec({ op: 'get_run', run_id: done.run_id }, OWNER, wsA);
  t.like(run, { id: done.run_id, status: 'completed', output: { greeting: 'hello ada' } });
  t.true(Array.isArray(run.steps));
});

test('without wait the run is queued and answered at once', async (t) => {
  const meta: Record<string, unknown> = {};
  const started = await exec({ op: 'start_binding_run', binding_id: bindingA, input: { name: 'bob' } }, OWNER, wsA, meta);
  t.deepEqual(Object.keys(started).sort(), ['run_id', 'status']);
  t.false('$statusCode' in meta, 'the 202 of the callee stays out of the caller meta');
  const run = await runUntil(k, 'owner-token', started.run_id, ['completed']);
  t.is(run.output.greeting, 'hello bob');
});

test('a binding or run of another workspace is not found inside a workspace', async (t) => {
  const err = await failure(t, exec({ op: 'start_binding_run', binding_id: bindingB }, OWNER, wsA));
  t.regex(err.message, /No workflow binding with id .* in this workspace/);
  const inB = await exec({ op: 'start_binding_run', binding_id: bindingB, wait: true }, OWNER, wsB);
  t.regex((await failure(t, exec({ op: 'get_run', run_id: inB.run_id }, OWNER, wsA))).message, /No workflow run/);
  // an entity-wide call (no workspace) reaches both
  t.is((await exec({ op: 'get_run', run_id: inB.run_id }, OWNER, null)).id, inB.run_id);
});

test('another entity cannot start or read this entity runs', async (t) => {
  const mine = await exec({ op: 'start_binding_run', binding_id: bindingA, wait: true }, OWNER, wsA);
  const start = await failure(t, exec({ op: 'start_binding_run', binding_id: bindingA }, OTHER, null));
  t.like(start.data, { cause: { code: 'NOT_FOUND', status: 404 } });
  const read = await failure(t, exec({ op: 'get_run', run_id: mine.run_id }, OTHER, null));
  t.like(read.data, { cause: { code: 'NOT_FOUND', status: 404 } });
  // and with a workspace of e-1 named in its context, the binding lookup finds nothing either
  await failure(t, exec({ op: 'start_binding_run', binding_id: bindingA }, OTHER, wsA));
});

test('bad arguments are invalid arguments', async (t) => {
  for (const args of [{ op: 'start_binding_run' }, { op: 'get_run' }, { op: 'cancel_run', run_id: 'x' }, { op: 'get_run', run_id: 'x', wait: 'yes' }]) {
    await failure(t, exec(args, OWNER, wsA), 'TOOLS_ERR_INVALID_ARGUMENTS');
  }
  await failure(t, exec({ op: 'get_run', run_id: 'not-a-run' }, OWNER, null));
});
