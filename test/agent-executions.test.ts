import test from 'ava';
import { useAgentKernel } from './helpers/agent-kernel.ts';

/**
 * GET /api/v1/executions filtered by agent, status and workspace; an agent run's tokens in
 * GET /api/v1/usage/summary; tool arguments failing the tool's schema going back to the model
 * as a tool error, end to end through the SDK against the scripted provider.
 */
const kernel = useAgentKernel(test, 'agent_executions', {}, [['plugins', 'usage']]);
const OWNER = 'owner-token';

type Entry = { kind: string; data: Record<string, unknown> };
const messagesOf = (request: { body: unknown }) => (request.body as { messages: { role: string; content?: unknown }[] }).messages;

async function task(workspace_id: string, agent_id: string, title: string): Promise<string> {
  const created = await kernel.ak.call('/api/v1/tasks', { method: 'POST', token: OWNER, json: { title, workspace_id, assignee: { type: 'agent', id: agent_id } } });
  if (created.status !== 201) throw new Error(created.text);
  return created.body.id;
}

const executions = async (query: string, token = OWNER) => {
  const res = await kernel.ak.call(`/api/v1/executions?${query}`, { token });
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return res.body as { total: number; items: { id: string; agent_id: string; task_id: string; workspace_id: string; status: string }[] };
};

test.serial('executions filter by agent, status and workspace, alone and together; another entity sees none', async (t) => {
  const first = await kernel.ak.setup(OWNER);
  const second = await kernel.ak.setup(OWNER);
  // second workspace: the tasks tool asks a person, so its run parks
  await kernel.ak.call(`/api/v1/workspaces/${second.workspace_id}/governance`, { method: 'PUT', token: OWNER, json: { rules: [{ tool: 'tasks', decision: 'ask' }] } });
  kernel.ak.provider.replies.push({ text: 'Done.' });
  const done = await task(first.workspace_id, first.agent_id, 'Say done');
  await kernel.ak.taskReaches(OWNER, done, ['completed']);
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'tasks', arguments: { op: 'create', title: 'Follow up' } }] });
  const parked = await task(second.workspace_id, second.agent_id, 'File a follow-up');
  await kernel.ak.taskReaches(OWNER, parked, ['waiting_on_customer', 'in_progress', 'failed']);
  let paused = await executions(`task_id=${parked}`);
  for (let i = 0; i < 200 && paused.items[0]?.status !== 'paused'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    paused = await executions(`task_id=${parked}`);
  }
  t.is(paused.items[0]?.status, 'paused');

  const byAgent = await executions(`agent_id=${first.agent_id}`);
  t.deepEqual(byAgent.items.map((e) => e.task_id), [done]);
  t.true(byAgent.items.every((e) => e.agent_id === first.agent_id));
  const byWorkspace = await executions(`workspace_id=${second.workspace_id}`);
  t.deepEqual(byWorkspace.items.map((e) => e.task_id), [parked]);
  const byStatus = await executions('status=paused');
  t.true(byStatus.items.some((e) => e.task_id === parked));
  t.true(byStatus.items.every((e) => e.status === 'paused'));
  t.is((await executions(`status=completed&workspace_id=${second.workspace_id}`)).total, 0, 'filters combine');
  t.is((await executions(`status=completed&agent_id=${first.agent_id}&workspace_id=${first.workspace_id}`)).total, 1);
  t.is((await executions(`agent_id=${second.agent_id}&workspace_id=${first.workspace_id}`)).total, 0);
  t.is((await executions(`workspace_id=${first.workspace_id}`, 'other-token')).total, 0, "another entity sees none of this entity's executions");
  const bad = await kernel.ak.call('/api/v1/executions?status=sleeping', { token: OWNER });
  t.is(bad.status, 422, bad.text);
  const cancelled = await kernel.ak.call(`/api/v1/workflows/runs/${paused.items[0].id}/cancel`, { method: 'POST', token: OWNER });
  t.is(cancelled.status, 200, cancelled.text);
});

test.serial("an agent run's tokens, as the provider reported them, reach GET /api/v1/usage/summary", async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER);
  const tokens = async () => {
    const res = await kernel.ak.call('/api/v1/usage/summary', { token: OWNER });
    if (res.status !== 200) throw new Error(res.text);
    return res.body.tokens as number;
  };
  const before = await tokens();
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'datetime', arguments: { op: 'now' } }], usage: { input_tokens: 1200, output_tokens: 34 } });
  kernel.ak.provider.replies.push({ text: 'It is now.', usage: { input_tokens: 1300, output_tokens: 7 } });
  await kernel.ak.taskReaches(OWNER, await task(workspace_id, agent_id, 'Count my tokens'), ['completed']);
  t.is(await tokens(), before + 1200 + 34 + 1300 + 7);
  const other = await kernel.ak.call('/api/v1/usage/summary', { token: 'other-token' });
  t.is(other.body.tokens, 0, "another entity's summary counts none of them");
});

test.serial("tool arguments that fail the tool's schema go back to the model as a tool error, and the run goes on", async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER);
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'datetime', arguments: { op: 'teleport', zone: 42 } }] });
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'datetime', arguments: { op: 'now', zone: 'UTC' } }] });
  kernel.ak.provider.replies.push({ text: 'Fixed my call; it is now.' });
  const before = kernel.ak.provider.requests.length;
  const done = await kernel.ak.taskReaches(OWNER, await task(workspace_id, agent_id, 'Time, with a bad call first'), ['completed', 'failed']);
  t.is(done.status, 'completed');
  const requests = kernel.ak.provider.requests.slice(before);
  t.is(requests.length, 3, 'the model was asked again after the bad call, and after the good one');
  const told = messagesOf(requests[1]).find((m) => m.role === 'tool');
  t.truthy(told, 'the bad call was answered with a tool message');
  t.regex(JSON.stringify(told!.content), /not valid/);
  t.regex(JSON.stringify(told!.content), /op/);
  const calls = (done.execution_record as Entry[]).filter((e) => e.kind === 'tool_call' && e.data.name === 'datetime');
  t.deepEqual(calls.map((c) => c.data.ok), [false, true]);
});
