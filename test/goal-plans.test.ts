import test from 'ava';
import { useAgentKernel } from './helpers/agent-kernel.ts';
import { eventually } from './helpers/eventually.ts';

/**
 * An agent produces a plan for a goal (POST /api/v1/goals/{goal_id}/plan): a durable agent run
 * whose propose_plan links the plan to the goal, waiting for approval when the workspace says
 * so; every model turn through the SDK against the scripted provider.
 */
const kernel = useAgentKernel(test, 'goal_plans', {}, [['plugins', 'goals']]);
const OWNER = 'owner-token';

const offered = (request: { body: unknown }): string[] => ((request.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((x) => x.function.name);
const PROPOSAL = { summary: 'Win back lapsed customers.', steps: [{ title: 'List customers lapsed 90 days' }, { title: 'Send a win-back offer', detail: 'Ten percent off.' }] };

async function goal(workspace_id: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await kernel.ak.call('/api/v1/goals', { method: 'POST', token: OWNER, json: { workspace_id, objective: 'Grow repeat orders to 40% {{trigger.goal_id}}', metrics: [{ name: 'Repeat rate', target: 40, unit: '%' }], ...extra } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
}

async function runOf(runId: string, statuses: string[]): Promise<any> {
  let run: any;
  await eventually(async () => statuses.includes((run = (await kernel.ak.call(`/api/v1/workflows/runs/${runId}`, { token: OWNER })).body)?.status), { timeoutMs: 20_000 });
  return run;
}

test.serial("an agent's plan for a goal waits for approval in a supervised workspace; approving it lets the run finish", async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER);
  const g = await goal(workspace_id);
  const before = kernel.ak.provider.requests.length;
  kernel.ak.provider.replies.push({ text: 'My plan:', tool_calls: [{ name: 'propose_plan', arguments: PROPOSAL }] });
  const started = await kernel.ak.call(`/api/v1/goals/${g.id}/plan`, { method: 'POST', token: OWNER, json: { agent_id } });
  t.is(started.status, 202, started.text);
  t.like(started.body, { goal_id: g.id, agent_id });
  const parked = await runOf(started.body.run_id, ['paused', 'failed', 'completed']);
  t.is(parked.status, 'paused', 'the supervised workspace (the default) asks a person first');
  const plans = await kernel.ak.call(`/api/v1/plans?goal_id=${g.id}`, { token: OWNER });
  t.is(plans.body.total, 1);
  const plan = plans.body.items[0];
  t.like(plan, { goal_id: g.id, task_id: null, agent_id, workspace_id, run_id: started.body.run_id, status: 'pending', requires_approval: true, summary: PROPOSAL.summary });
  const first = kernel.ak.provider.requests[before];
  t.deepEqual(offered(first).filter((n) => n.endsWith('_plan') || n.endsWith('_plan_step')), ['propose_plan'], 'a planning run proposes, it does not carry steps out');
  t.regex(JSON.stringify(first.body.messages), /Grow repeat orders to 40% \{\{trigger\.goal_id\}\}/, 'the goal reaches the model, its braces as text');
  t.regex(JSON.stringify(first.body.messages), /Repeat rate: target 40 %/);

  kernel.ak.provider.replies.push({ text: 'The plan is approved: two steps to win back lapsed customers.' });
  const approved = await kernel.ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: OWNER, json: {} });
  t.is(approved.status, 200, approved.text);
  const done = await runOf(started.body.run_id, ['completed', 'failed']);
  t.is(done.status, 'completed', JSON.stringify(done.error));
  const told = (kernel.ak.provider.requests.at(-1)!.body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'tool');
  t.regex(JSON.stringify(told?.content), /approved/);
  t.like((await kernel.ak.call(`/api/v1/plans/${plan.id}`, { token: OWNER })).body, { status: 'approved' });
  const executions = await kernel.ak.call(`/api/v1/executions?agent_id=${agent_id}&workspace_id=${workspace_id}`, { token: OWNER });
  t.like(executions.body.items.find((e: { id: string }) => e.id === started.body.run_id), { reason: 'goal_plan', goal_id: g.id, status: 'completed' });
});

test.serial("in an autonomous workspace the goal's plan is approved at once and the run finishes without a person", async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER);
  const model = await kernel.ak.call(`/api/v1/workspaces/${workspace_id}/operating-model`, { method: 'PUT', token: OWNER, json: { autonomy_level: 'autonomous' } });
  t.is(model.status, 200, model.text);
  // the goal's owner agent plans when none is named
  const g = await goal(workspace_id, { agent_id });
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'propose_plan', arguments: PROPOSAL }] });
  kernel.ak.provider.replies.push({ text: 'Planned.' });
  const started = await kernel.ak.call(`/api/v1/goals/${g.id}/plan`, { method: 'POST', token: OWNER, json: {} });
  t.is(started.status, 202, started.text);
  t.is(started.body.agent_id, agent_id);
  t.is((await runOf(started.body.run_id, ['completed', 'failed', 'paused'])).status, 'completed');
  const plans = await kernel.ak.call(`/api/v1/plans?goal_id=${g.id}`, { token: OWNER });
  t.like(plans.body.items[0], { status: 'approved', requires_approval: false, goal_id: g.id });
});

test.serial("another entity's goal or agent is 404; a goal without an agent to plan is 422", async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER);
  const g = await goal(workspace_id);
  const requests = kernel.ak.provider.requests.length;
  t.is((await kernel.ak.call(`/api/v1/goals/${g.id}/plan`, { method: 'POST', token: 'other-token', json: {} })).status, 404);
  const foreign = await kernel.ak.setup('other-token');
  t.is((await kernel.ak.call(`/api/v1/goals/${g.id}/plan`, { method: 'POST', token: OWNER, json: { agent_id: foreign.agent_id } })).status, 404);
  const none = await kernel.ak.call(`/api/v1/goals/${g.id}/plan`, { method: 'POST', token: OWNER, json: {} });
  t.is(none.status, 422, none.text);
  t.is(none.body.errors?.[0]?.field, 'agent_id');
  t.is((await kernel.ak.call(`/api/v1/plans?goal_id=${g.id}`, { token: OWNER })).body.total, 0);
  t.is(kernel.ak.provider.requests.length, requests, 'no model was asked');
  t.truthy(agent_id);
});
