import test from 'ava';
import { startAiNodesKernel, type AiNodesKernel } from '../../../test/helpers/ai-nodes.ts';
import { receipt, runUntil } from '../../../test/workflows-helpers.ts';

/**
 * Test-only tools (plain JS: the kernel imports nothing of theirs): `ledger` (medium risk, not
 * idempotent) and `lookup` (low risk, no side effect). Each records its calls; `ledger` refuses
 * (422, like a ToolError) or crashes when its arguments ask it to.
 */
const tool = (name: string, risk: string, sideEffect: string) => ({
  'package.json': JSON.stringify({ name: `test-tool-${name}`, version: '1.0.0', type: 'module', capability: { kind: 'tool', roles: ['api', 'work'] } }),
  'index.js': `const calls = [];
export default {
  name: 'tool.${name}',
  metadata: { tool: { name: '${name}', description: 'test tool ${name}', risk: '${risk}', side_effect: '${sideEffect}',
    parameters: { type: 'object', properties: { entry: { type: 'string', minLength: 1 }, refuse: { type: 'boolean' }, crash: { type: 'boolean' } }, required: ['entry'], additionalProperties: false } } },
  actions: {
    execute: {
      params: { arguments: 'object', context: 'object' },
      handler(ctx) {
        const { arguments: args, context } = ctx.params;
        calls.push({ args, context, user: ctx.meta.user ?? null });
        if (args.refuse) throw Object.assign(new Error('the ledger is closed for ' + args.entry), { code: 422, type: 'TOOLS_ERR_FAILED' });
        if (args.crash) throw new Error('db password hunter2 rejected at /srv/ledger.js:1');
        return { recorded: args.entry, n: calls.length };
      },
    },
    calls: { handler() { return calls; } },
  },
};
`,
});

let ai: AiNodesKernel;
test.before(async () => {
  ai = await startAiNodesKernel('node_tool', { extra: { 'test-tool-ledger': tool('ledger', 'medium', 'non_idempotent'), 'test-tool-lookup': tool('lookup', 'low', 'none') } });
});
test.after.always(async () => ai?.close());

const ledgerCalls = async (runId: string) => ((await ai.k.kernel.broker.call('tool.ledger.calls')) as any[]).filter((c) => c.context.run_id === runId);
const governance = async (rules: { tool: string; decision: string }[]) => {
  const res = await ai.k.call(`/api/v1/workspaces/${ai.workspaceId}/governance`, { method: 'PUT', token: 'owner-token', json: { rules } });
  if (res.status !== 200) throw new Error(`governance answered ${res.status}: ${res.text}`);
};
const resume = (runId: string, body: Record<string, unknown>, token = 'owner-token') => ai.k.call(`/api/v1/workflows/runs/${runId}/resume`, { method: 'POST', token, json: body });
const ledgerSteps = (args: Record<string, unknown> = { entry: '{{trigger.entry}}' }) => [
  { id: 'write', type: 'tool', config: { tool: 'ledger', arguments: args }, next: ['after'] },
  { id: 'after', type: 'transform', config: { set: { got: '{{write.output.recorded}}' } }, next: [] },
];

test.beforeEach(() => governance([]));

test.serial('allowed: the tool runs once with the run context as its owner; its result is the output', async (t) => {
  const run = await ai.run(ledgerSteps(), { entry: 'invoice 7' });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.like(receipt(run, 'write').output, { recorded: 'invoice 7' });
  t.deepEqual(receipt(run, 'after').output, { got: 'invoice 7' });
  const calls = await ledgerCalls(run.id);
  t.is(calls.length, 1);
  t.like(calls[0].context, { entity_id: 'e-1', user_id: 'u-owner', workspace_id: ai.workspaceId, step_id: 'write', invocation_id: `${run.id}:write`, approval: null });
  t.like(calls[0].user, { id: 'u-owner', entity_id: 'e-1' });
  t.like(receipt(run, 'write:call'), { status: 'completed' }, 'a non-idempotent call is checkpointed (marked uncertain while in flight)');
});

test.serial('a tool without side effects needs no in-flight marker', async (t) => {
  const run = await ai.run([{ id: 'look', type: 'tool', config: { tool: 'lookup', arguments: { entry: 'x' } }, next: [] }]);
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.like(receipt(run, 'look').output, { recorded: 'x' });
  t.is(receipt(run, 'look:call'), undefined);
});

test.serial('denied by the workspace policy: the step fails naming the rule; the tool never runs', async (t) => {
  await governance([{ tool: 'ledger', decision: 'deny' }]);
  const run = await ai.run(ledgerSteps(), { entry: 'x' });
  t.is(run.status, 'failed');
  t.is(receipt(run, 'write').error.code, 'TOOL_DENIED');
  t.regex(receipt(run, 'write').error.message, /governance rule for 'ledger': deny/);
  t.is((await ledgerCalls(run.id)).length, 0);
});

test.serial('ask: the run parks; the owner approves; the tool runs exactly once, with the approval', async (t) => {
  await governance([{ tool: 'ledger', decision: 'ask' }]);
  const run = await ai.run(ledgerSteps(), { entry: 'refund 9' });
  t.is(run.status, 'paused', JSON.stringify(run.error));
  t.like(run.pause, { kind: 'runtime_approval', step_id: 'write', decision_required: true });
  t.regex(run.pause.message, /needs approval/);
  t.is((await ledgerCalls(run.id)).length, 0);

  const byAdmin = await resume(run.id, { decision: 'approve' }, 'admin-token');
  t.is(byAdmin.status, 403);
  const approved = await resume(run.id, { decision: 'approve', comment: 'fine' });
  t.is(approved.status, 200, approved.text);
  const done = await runUntil(ai.k, 'owner-token', run.id, ['completed', 'failed']);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  t.deepEqual(receipt(done, 'after').output, { got: 'refund 9' });
  const calls = await ledgerCalls(run.id);
  t.is(calls.length, 1, 'ran once');
  t.like(calls[0].context.approval, { decision: 'approve', decided_by: 'u-owner', comment: 'fine' });
});

test.serial('ask, then the policy turns to deny before the approval: the approved repeat fails, the tool never runs', async (t) => {
  await governance([{ tool: 'ledger', decision: 'ask' }]);
  const run = await ai.run(ledgerSteps(), { entry: 'x' });
  t.is(run.status, 'paused');
  await governance([{ tool: 'ledger', decision: 'deny' }]);
  t.is((await resume(run.id, { decision: 'approve' })).status, 200);
  const done = await runUntil(ai.k, 'owner-token', run.id, ['completed', 'failed']);
  t.is(done.status, 'failed');
  t.is(receipt(done, 'write').error.code, 'TOOL_DENIED');
  t.is((await ledgerCalls(run.id)).length, 0);
});

test.serial('ask, then reject: the step fails, the tool never runs', async (t) => {
  await governance([{ tool: 'ledger', decision: 'ask' }]);
  const run = await ai.run(ledgerSteps(), { entry: 'x' });
  t.is(run.status, 'paused');
  t.is((await resume(run.id, { decision: 'reject', comment: 'no' })).status, 200);
  const done = await runUntil(ai.k, 'owner-token', run.id, ['completed', 'failed']);
  t.is(done.status, 'failed');
  t.is(receipt(done, 'write').error.code, 'APPROVAL_REJECTED');
  t.regex(receipt(done, 'write').error.message, /rejected by u-owner: no/);
  t.is((await ledgerCalls(run.id)).length, 0);
});

test.serial("a tool's refusal fails the step with its message; a crash with no internal detail", async (t) => {
  const refused = await ai.run(ledgerSteps({ entry: 'x', refuse: true }));
  t.is(refused.status, 'failed');
  t.like(receipt(refused, 'write').error, { code: 'TOOLS_ERR_FAILED', message: 'the ledger is closed for x' });
  const crashed = await ai.run(ledgerSteps({ entry: 'x', crash: true }));
  t.is(crashed.status, 'failed');
  t.like(receipt(crashed, 'write').error, { code: 'TOOL_CRASHED', message: "The tool 'ledger' failed unexpectedly." });
  t.false(JSON.stringify(crashed).includes('hunter2'));
});

test.serial('arguments that do not match the parameters fail before policy is asked (no approval for a bad call)', async (t) => {
  await governance([{ tool: 'ledger', decision: 'ask' }]);
  const run = await ai.run(ledgerSteps({ entry: '', extra: 1 }));
  t.is(run.status, 'failed');
  t.is(receipt(run, 'write').error.code, 'TOOLS_ERR_INVALID_ARGUMENTS');
  t.regex(receipt(run, 'write').error.message, /config\.arguments\.entry/);
  t.regex(receipt(run, 'write').error.message, /extra/);
});

test.serial('an unknown tool fails the step; bad configs are refused at save', async (t) => {
  const run = await ai.run([{ id: 'x', type: 'tool', config: { tool: 'nope' }, next: [] }]);
  t.is(run.status, 'failed');
  t.is(receipt(run, 'x').error.code, 'TOOL_UNAVAILABLE');
  for (const config of [{}, { tool: 'Bad Name' }, { tool: 'ledger', arguments: [1] }, { tool: 'ledger', other: 1 }]) {
    const res = await ai.k.call('/api/v1/workflows', { method: 'POST', token: 'owner-token', json: { name: 'bad', steps: [{ id: 'start', type: 'trigger', next: ['x'] }, { id: 'x', type: 'tool', config, next: [] }] } });
    t.is(res.status, 422, JSON.stringify(config));
    t.true(res.body.errors.some((e: { field: string }) => e.field.startsWith('steps.x')), JSON.stringify(res.body.errors));
  }
});

test.serial('standalone (run-node, no run) the tool node refuses to act', async (t) => {
  const res = await ai.k.call('/api/v1/workflows/run-node', { method: 'POST', token: 'owner-token', json: { type: 'tool', config: { tool: 'lookup', arguments: { entry: 'x' } } } });
  t.is(res.status, 422);
  t.is(res.body.code, 'WORKFLOWS_ERR_NODE_FAILED');
  t.regex(res.body.detail, /inside a workflow run/);
});

test.serial('a repeat after a crash with the call already checkpointed answers the recorded result without calling the tool', async (t) => {
  const before = ((await ai.k.kernel.broker.call('tool.ledger.calls')) as unknown[]).length;
  const context = {
    run_id: 'r-recovered', step_id: 'write', entity_id: 'e-1', workspace_id: ai.workspaceId, attempt: 1, owner_id: 'u-owner', engine_node: ai.k.kernel.broker.nodeID,
    checkpoints: [{ key: 'call', status: 'completed', output: { recorded: 'once', n: 1 }, error: null, uncertain: false, started_at: null, finished_at: null }],
  };
  const answer = await ai.k.kernel.broker.call('node.tool.execute', { config: { tool: 'ledger', arguments: { entry: 'once' } }, input: null, inputs: {}, context });
  t.deepEqual(answer, { output: { recorded: 'once', n: 1 } });
  t.is(((await ai.k.kernel.broker.call('tool.ledger.calls')) as unknown[]).length, before);
});
