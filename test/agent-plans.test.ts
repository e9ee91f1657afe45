import test from 'ava';
import { useAgentKernel } from './helpers/agent-kernel.ts';
import { eventually } from './helpers/eventually.ts';

const kernel = useAgentKernel(test, 'agent_plans', {}, [['plugins', 'goals']]);
const OWNER = 'owner-token';

type Entry = { kind: string; data: Record<string, any> };
const toolMessages = (request: { body: unknown }): { role: string; content?: unknown }[] =>
  (request.body as { messages: { role: string; content?: unknown }[] }).messages.filter((m) => m.role === 'tool');
const offered = (request: { body: unknown }): string[] => ((request.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((x) => x.function.name);

const PROPOSAL = { summary: 'Replace the toner of the second-floor printer.', steps: [{ title: 'Order toner' }, { title: 'Install it', detail: 'Follow the manual.' }] };

async function planOf(taskId: string): Promise<any> {
  let plan: any;
  await eventually(async () => {
    const list = await kernel.ak.call(`/api/v1/plans?task_id=${taskId}`, { token: OWNER });
    plan = list.body.items?.[0];
    return Boolean(plan);
  }, { timeoutMs: 20_000 });
  return plan;
}

async function waitingTask(taskId: string): Promise<any> {
  let task: any;
  await eventually(async () => {
    task = (await kernel.ak.call(`/api/v1/tasks/${taskId}`, { token: OWNER })).body;
    return Boolean(task.pending_request) || task.status === 'failed';
  }, { timeoutMs: 20_000 });
  return task;
}

test.serial('a task run proposes a plan that waits for approval; approving the plan goes on, the steps are marked, the plan completes', async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER);
  const before = kernel.ak.provider.requests.length;
  kernel.ak.provider.replies.push({ text: 'Here is my plan.', tool_calls: [{ name: 'propose_plan', arguments: PROPOSAL }] });
  const created = await kernel.ak.call('/api/v1/tasks', { method: 'POST', token: OWNER, json: { title: 'Printer out of toner', workspace_id, assignee: { type: 'agent', id: agent_id } } });
  t.is(created.status, 201, created.text);
  const waiting = await waitingTask(created.body.id);
  t.is(waiting.pending_request?.kind, 'approval', 'the supervised workspace asks a person first');
  t.regex(waiting.pending_request.prompt, /plan/);
  const plan = await planOf(created.body.id);
  t.like(plan, { status: 'pending', agent_id, task_id: created.body.id, requires_approval: true, summary: PROPOSAL.summary });
  t.deepEqual(plan.steps.map((s: { title: string }) => s.title), ['Order toner', 'Install it']);
  t.truthy(plan.run_id);
  t.true(offered(kernel.ak.provider.requests[before]).includes('propose_plan'), 'a task run offers the plan tools');

  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'update_plan_step', arguments: { index: 0, status: 'done' } }, { name: 'update_plan_step', arguments: { index: 1, status: 'done' } }] });
  kernel.ak.provider.replies.push({ text: 'Ordered and installed the toner.' });
  const approved = await kernel.ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: OWNER, json: { comment: 'ok' } });
  t.is(approved.status, 200, approved.text);
  const done = await kernel.ak.taskReaches(OWNER, created.body.id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  t.is(done.pending_request, null, "the task's request was answered with the plan");
  const after = (await kernel.ak.call(`/api/v1/plans/${plan.id}`, { token: OWNER })).body;
  t.like(after, { status: 'completed' });
  t.deepEqual(after.steps.map((s: { status: string }) => s.status), ['done', 'done']);
  const record = done.execution_record as Entry[];
  t.deepEqual(record.filter((e) => e.kind === 'plan_step').map((e) => [e.data.index, e.data.status]), [[0, 'done'], [1, 'done']]);
  const requests = kernel.ak.provider.requests.slice(before);
  t.is(requests.length, 3, 'one model turn per round, none repeated by the park');
  t.regex(JSON.stringify(toolMessages(requests[1])[0]?.content), /approved/);
});

test.serial('rejecting through the task approval rejects the plan, and the model is told why', async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER);
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'propose_plan', arguments: PROPOSAL }] });
  const created = await kernel.ak.call('/api/v1/tasks', { method: 'POST', token: OWNER, json: { title: 'Toner again', workspace_id, assignee: { type: 'agent', id: agent_id } } });
  const waiting = await waitingTask(created.body.id);
  t.is(waiting.pending_request?.kind, 'approval');
  kernel.ak.provider.replies.push({ text: 'Understood, I stop here.' });
  const rejected = await kernel.ak.call(`/api/v1/tasks/${created.body.id}/approval`, { method: 'POST', token: OWNER, json: { decision: 'reject', comment: 'too expensive' } });
  t.is(rejected.status, 200, rejected.text);
  const done = await kernel.ak.taskReaches(OWNER, created.body.id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  const plan = await planOf(created.body.id);
  t.like(plan, { status: 'rejected', decision_comment: 'too expensive' });
  t.truthy(plan.decided_by);
  const told = JSON.stringify(toolMessages(kernel.ak.provider.requests.at(-1)!)[0]?.content);
  t.regex(told, /PLAN_REJECTED/);
  t.regex(told, /too expensive/);
  const late = await kernel.ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: OWNER, json: {} });
  t.is(late.status, 409, 'a decided plan cannot be decided again');
});

test.serial('an autonomous workspace approves the plan at once; a bad step index goes back to the model, not a crash', async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER);
  const model = await kernel.ak.call(`/api/v1/workspaces/${workspace_id}/operating-model`, { method: 'PUT', token: OWNER, json: { autonomy_level: 'autonomous' } });
  t.is(model.status, 200, model.text);
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'propose_plan', arguments: PROPOSAL }] });
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'update_plan_step', arguments: { index: 7, status: 'done' } }] });
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'update_plan_step', arguments: { index: 0, status: 'done' } }, { name: 'update_plan_step', arguments: { index: 1, status: 'skipped' } }] });
  kernel.ak.provider.replies.push({ text: 'Done after one mistake.' });
  const created = await kernel.ak.call('/api/v1/tasks', { method: 'POST', token: OWNER, json: { title: 'Toner, autonomously', workspace_id, assignee: { type: 'agent', id: agent_id } } });
  const done = await kernel.ak.taskReaches(OWNER, created.body.id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  const plan = await planOf(created.body.id);
  t.like(plan, { status: 'completed', requires_approval: false, decided_by: null });
  const told = JSON.stringify(toolMessages(kernel.ak.provider.requests.at(-1)!).map((m) => m.content));
  t.regex(told, /index 7/);
  const bad = await kernel.ak.call('/api/v1/tasks', { method: 'POST', token: 'other-token', json: { title: 'x' } });
  t.is(bad.status, 201);
  const foreign = await kernel.ak.call(`/api/v1/plans/${plan.id}`, { token: 'other-token' });
  t.is(foreign.status, 404, "another entity cannot see the agent's plan");
});

test.serial('an answer that leaves plan steps unfinished is reviewed: corrected twice in the loop, then paused in delivery review until a person resumes it', async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER);
  await kernel.ak.call(`/api/v1/workspaces/${workspace_id}/operating-model`, { method: 'PUT', token: OWNER, json: { autonomy_level: 'autonomous' } });
  const before = kernel.ak.provider.requests.length;
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'propose_plan', arguments: PROPOSAL }] });
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'update_plan_step', arguments: { index: 0, status: 'done' } }] });
  kernel.ak.provider.replies.push({ text: 'All done.' });
  kernel.ak.provider.replies.push({ text: 'Really done.' });
  kernel.ak.provider.replies.push({ text: 'Done, I insist.' });
  const created = await kernel.ak.call('/api/v1/tasks', { method: 'POST', token: OWNER, json: { title: 'Toner, reviewed', workspace_id, assignee: { type: 'agent', id: agent_id } } });
  let task: any;
  await eventually(async () => {
    task = (await kernel.ak.call(`/api/v1/tasks/${created.body.id}`, { token: OWNER })).body;
    return task.delivery_review?.state === 'paused' || task.status === 'failed' || task.status === 'completed';
  }, { timeoutMs: 20_000 });
  t.is(task.status, 'in_progress', 'a paused review neither completes nor fails the task');
  t.is(task.pending_request, null, 'a review pause is not an approval request');
  const plan = await planOf(created.body.id);
  t.like(task.delivery_review, { state: 'paused', plan_id: plan.id, state_version: plan.version });
  const asked = kernel.ak.provider.requests.slice(before);
  t.is(asked.length, 5);
  const told = (asked[3].body as { messages: { role: string; content?: unknown }[] }).messages.at(-1);
  t.is(told?.role, 'user');
  t.regex(String(told?.content), /Delivery review.*1: Install it/);

  const stale = await kernel.ak.call(`/api/v1/tasks/${task.id}/resume-delivery-review`, { method: 'POST', token: OWNER, json: { expected_plan_id: plan.id, expected_state_version: plan.version + 1 } });
  t.is(stale.status, 409, stale.text);
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'update_plan_step', arguments: { index: 1, status: 'skipped' } }] });
  kernel.ak.provider.replies.push({ text: 'Installing was not needed; finished.' });
  const resumed = await kernel.ak.call(`/api/v1/tasks/${task.id}/resume-delivery-review`, { method: 'POST', token: OWNER, json: { expected_plan_id: plan.id, expected_state_version: plan.version } });
  t.is(resumed.status, 200, resumed.text);
  t.is(resumed.body.delivery_review.state, 'resumed');
  t.is(resumed.body.status, 'in_progress', 'resuming completes nothing by itself');
  const done = await kernel.ak.taskReaches(OWNER, task.id, ['completed', 'failed']);
  t.is(done.status, 'completed');
  t.is((await kernel.ak.call(`/api/v1/plans/${plan.id}`, { token: OWNER })).body.status, 'completed');
  const all = kernel.ak.provider.requests.slice(before);
  t.is(all.length, 7, 'the resume replayed every earlier turn instead of asking again');
  t.regex(String((all[5].body as { messages: { content?: unknown }[] }).messages.at(-1)?.content), /resumed by a person/);
  const tools = (done.execution_record as Entry[]).filter((e) => e.kind === 'tool_call').map((e) => e.data.name);
  t.deepEqual(tools, ['propose_plan', 'update_plan_step', 'update_plan_step'], 'no completed tool call was repeated');
});
