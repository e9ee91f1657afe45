import test from 'ava';
import { randomUUID } from 'node:crypto';
import { useAgentsKernel, USERS, type AgentsKernel } from './agents-helpers.ts';
import { eventually } from './helpers/eventually.ts';
import { compileWithAjv } from './openapi-ajv.ts';

const fixture = useAgentsKernel(test, 'goals_plans');
const OWNER = 'owner-token';
const steps = [{ title: 'Read the ticket' }, { title: 'Draft a reply', detail: 'Short and friendly' }];

/** A workspace with an agent, its governance and autonomy set as given. */
async function workspace(ak: AgentsKernel, approval_mode: string, autonomy_level: string): Promise<{ ws: string; agent: string }> {
  const ws = await ak.createWorkspace(OWNER);
  const g = await ak.call(`/api/v1/workspaces/${ws}/governance`, { method: 'PUT', token: OWNER, json: { approval_mode } });
  const o = await ak.call(`/api/v1/workspaces/${ws}/operating-model`, { method: 'PUT', token: OWNER, json: { autonomy_level } });
  if (g.status !== 200 || o.status !== 200) throw new Error(`${g.text} ${o.text}`);
  return { ws, agent: (await ak.createAgent(OWNER, { workspace_id: ws })).id };
}

const eventsOf = (ak: AgentsKernel, planId: string) => ak.events.filter((e) => e.payload.plan_id === planId);

test('automatic governance with autonomous agents: a proposal is approved at once', async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'automatic', 'autonomous');
  const runId = randomUUID();
  const plan = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, run_id: runId, summary: 'Answer the ticket', steps });
  t.like(plan, { entity_id: 'e-1', workspace_id: ws, agent_id: agent, run_id: runId, goal_id: null, task_id: null, status: 'approved', requires_approval: false, decided_by: null, decision_comment: null, created_by: 'u-owner', version: 1 });
  t.deepEqual(plan.steps, [{ title: 'Read the ticket', detail: null, status: 'pending' }, { title: 'Draft a reply', detail: 'Short and friendly', status: 'pending' }]);
  t.truthy(plan.decided_at);
  await eventually(async () => eventsOf(ak, plan.id).length === 2);
  t.deepEqual(eventsOf(ak, plan.id).map((e) => e.name), ['plan.proposed', 'plan.approved']);
  t.like(eventsOf(ak, plan.id)[1].payload, { entity_id: 'e-1', workspace_id: ws, plan_id: plan.id, goal_id: null, task_id: null, agent_id: agent, run_id: runId, automatic: true });
  const again = await ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: OWNER, json: {} });
  t.is(again.status, 409);
  t.like(again.body, { code: 'GOALS_ERR_PLAN_NOT_PENDING', current_status: 'approved' });
});

for (const [mode, autonomy] of [['confirm_changes', 'autonomous'], ['risk_based', 'autonomous'], ['automatic', 'suggest'], ['automatic', 'supervised']]) {
  test(`governance ${mode} with autonomy ${autonomy}: a proposal waits for a person`, async (t) => {
    const { ak } = fixture;
    const { ws, agent } = await workspace(ak, mode, autonomy);
    const plan = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, summary: 'Needs a look', steps });
    t.like(plan, { status: 'pending', requires_approval: true, decided_by: null, decided_at: null });
  });
}

test('approve a pending plan (200), approve again (409), reject it (409); the decision is recorded', async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'confirm_changes', 'autonomous');
  const plan = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, summary: 'Change things', steps });
  const res = await ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: 'member-token', json: { comment: ' Go ahead ' } });
  t.is(res.status, 200, res.text);
  t.like(res.body, { status: 'approved', decided_by: 'u-member', decision_comment: 'Go ahead', version: 2 });
  t.truthy(res.body.decided_at);
  const again = await ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: OWNER });
  t.is(again.status, 409);
  t.like(again.body, { code: 'GOALS_ERR_PLAN_NOT_PENDING', current_status: 'approved', plan_id: plan.id });
  t.is((await ak.call(`/api/v1/plans/${plan.id}/reject`, { method: 'POST', token: OWNER, json: { comment: 'no' } })).status, 409);
  t.deepEqual((await ak.call(`/api/v1/plans/${plan.id}`, { token: OWNER })).body, res.body);
  await eventually(async () => eventsOf(ak, plan.id).length === 2);
  t.deepEqual(eventsOf(ak, plan.id).map((e) => e.name), ['plan.proposed', 'plan.approved']);
  t.like(eventsOf(ak, plan.id)[1].payload, { decided_by: 'u-member', automatic: false, comment: 'Go ahead', status: 'approved' });
});

test('reject a pending plan; the comment is optional', async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'confirm_changes', 'supervised');
  const plan = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, summary: 'Risky', steps });
  const res = await ak.call(`/api/v1/plans/${plan.id}/reject`, { method: 'POST', token: OWNER });
  t.is(res.status, 200, res.text);
  t.like(res.body, { status: 'rejected', decided_by: 'u-owner', decision_comment: null });
  t.is((await ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: OWNER })).body.current_status, 'rejected');
  await eventually(async () => eventsOf(ak, plan.id).some((e) => e.name === 'plan.rejected'));
  for (const [body, field] of [[{ comment: 'c'.repeat(2001) }, 'comment'], [{ comment: 5 }, 'comment'], [{ decision: 'yes' }, 'decision']] as const) {
    const bad = await ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: OWNER, json: body });
    t.is(bad.status, 422, JSON.stringify(body));
    t.is(bad.body.errors[0].field, field);
  }
});

test('racing decisions: exactly one wins, the other gets 409 naming the status the winner left', async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'confirm_changes', 'autonomous');
  for (let round = 0; round < 3; round++) {
    const plan = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, summary: `Race ${round}`, steps });
    const answers = await Promise.all([
      ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: OWNER }),
      ak.call(`/api/v1/plans/${plan.id}/reject`, { method: 'POST', token: 'admin-token' }),
      ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: 'member-token' }),
    ]);
    const winners = answers.filter((r) => r.status === 200);
    t.is(winners.length, 1);
    const final = (await ak.call(`/api/v1/plans/${plan.id}`, { token: OWNER })).body;
    t.is(final.version, 2);
    t.is(final.status, winners[0].body.status);
    for (const loser of answers.filter((r) => r.status !== 200)) t.like(loser.body, { code: 'GOALS_ERR_PLAN_NOT_PENDING', current_status: final.status });
  }
});

test('a newer proposal for the same goal or task supersedes the older pending one', async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'confirm_changes', 'autonomous');
  const goal = await ak.createGoal(OWNER, { workspace_id: ws });
  const taskId = randomUUID();
  const first = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, goal_id: goal.id, summary: 'v1', steps });
  const unrelated = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, summary: 'other', steps });
  const second = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, goal_id: goal.id, task_id: taskId, summary: 'v2', steps });
  const get = async (id: string) => (await ak.call(`/api/v1/plans/${id}`, { token: OWNER })).body;
  t.like(await get(first.id), { status: 'superseded', version: 2 });
  t.like(await get(unrelated.id), { status: 'pending' });
  t.like(await get(second.id), { status: 'pending', goal_id: goal.id, task_id: taskId });
  const third = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, task_id: taskId, summary: 'v3', steps });
  t.like(await get(second.id), { status: 'superseded' });
  const ids = async (query: string) => (await ak.call(`/api/v1/plans?${query}`, { token: OWNER })).body.items.map((p: { id: string }) => p.id);
  t.deepEqual(await ids(`goal_id=${goal.id}`), [second.id, first.id]);
  t.deepEqual(await ids(`task_id=${taskId}`), [third.id, second.id]);
  t.deepEqual(await ids(`workspace_id=${ws}&status=pending`), [third.id, unrelated.id]);
  t.deepEqual(await ids(`agent_id=${agent}&status=superseded`), [second.id, first.id]);
  t.is((await ak.call(`/api/v1/plans?workspace_id=${ws}&limit=2`, { token: OWNER })).body.total, 4);
  await eventually(async () => eventsOf(ak, first.id).some((e) => e.name === 'plan.superseded'));
  const superseded = await ak.call(`/api/v1/plans/${first.id}/approve`, { method: 'POST', token: OWNER });
  t.like(superseded.body, { code: 'GOALS_ERR_PLAN_NOT_PENDING', current_status: 'superseded' });
});

test('plans.propose refuses bad input, naming the field', async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'automatic', 'autonomous');
  const { ws: elsewhere, agent: elsewhereAgent } = await workspace(ak, 'automatic', 'autonomous');
  const foreignAgent = await ak.createAgent('other-token');
  const elsewhereGoal = await ak.createGoal(OWNER, { workspace_id: elsewhere });
  const base = { workspace_id: ws, agent_id: agent, summary: 'ok', steps };
  const cases: [object, string][] = [
    [{ ...base, agent_id: foreignAgent.id }, 'agent_id'],
    [{ ...base, agent_id: elsewhereAgent }, 'agent_id'],
    [{ ...base, goal_id: elsewhereGoal.id }, 'goal_id'],
    [{ ...base, goal_id: randomUUID() }, 'goal_id'],
    [{ ...base, workspace_id: randomUUID() }, 'workspace_id'],
    [{ ...base, steps: [] }, 'steps'],
    [{ ...base, steps: [{ title: 'x', status: 'started' }] }, 'steps[0].status'],
    [{ ...base, steps: [{ title: 'x', extra: 1 }] }, 'steps[0]'],
    [{ ...base, summary: '' }, 'summary'],
    [{ ...base, colour: 'red' }, 'colour'],
  ];
  for (const [params, field] of cases) {
    const err: any = await t.throwsAsync(ak.act('plans.propose', params));
    t.is(err.code, 422, JSON.stringify(params));
    // an internal call gets fastest-validator's own shape: an unknown key is in `actual`, its object in `field`
    t.true((err.data ?? []).some((e: { field?: string; actual?: unknown }) => e.field === field || (e.field === '' || e.field === undefined ? e.actual === field : false)), `${field}: ${JSON.stringify(err.data)}`);
  }
  await t.throwsAsync(ak.act('plans.propose', base, USERS.other), { message: /workspace|agent/ });
  t.is((await ak.call(`/api/v1/plans?workspace_id=${ws}`, { token: OWNER })).body.total, 0);
});

test("another entity's plan is 404 on every route", async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'confirm_changes', 'autonomous');
  const plan = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, summary: 'Mine', steps });
  for (const id of [plan.id, 'not-a-uuid']) {
    t.is((await ak.call(`/api/v1/plans/${id}`, { token: 'other-token' })).status, 404);
    t.is((await ak.call(`/api/v1/plans/${id}/approve`, { method: 'POST', token: 'other-token' })).status, 404);
    t.is((await ak.call(`/api/v1/plans/${id}/reject`, { method: 'POST', token: 'other-token' })).status, 404);
  }
  t.is((await ak.call(`/api/v1/plans?workspace_id=${ws}`, { token: 'other-token' })).body.total, 0);
  await t.throwsAsync(ak.act('plans.updateStep', { plan_id: plan.id, index: 0, status: 'done' }, USERS.other), { message: /No plan/ });
  t.like((await ak.call(`/api/v1/plans/${plan.id}`, { token: OWNER })).body, { status: 'pending', version: 1 });
});

test('plans.updateStep: only on an approved plan; all steps finished completes it', async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'confirm_changes', 'autonomous');
  const plan = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, summary: 'Steps', steps });
  const pending: any = await t.throwsAsync(ak.act('plans.updateStep', { plan_id: plan.id, index: 0, status: 'done' }));
  t.is(pending.type, 'GOALS_ERR_PLAN_NOT_APPROVED');
  t.is(pending.data.current_status, 'pending');
  await ak.call(`/api/v1/plans/${plan.id}/approve`, { method: 'POST', token: OWNER });
  const past: any = await t.throwsAsync(ak.act('plans.updateStep', { plan_id: plan.id, index: 2, status: 'done' }));
  t.is(past.data[0].field, 'index');
  await t.throwsAsync(ak.act('plans.updateStep', { plan_id: plan.id, index: 0.5, status: 'done' }));
  const one = await ak.act('plans.updateStep', { plan_id: plan.id, index: 0, status: 'in_progress' });
  t.like(one, { status: 'approved', version: 3 });
  t.is(one.steps[0].status, 'in_progress');
  await ak.act('plans.updateStep', { plan_id: plan.id, index: 0, status: 'done' });
  const done = await ak.act('plans.updateStep', { plan_id: plan.id, index: 1, status: 'skipped' });
  t.like(done, { status: 'completed', version: 5 });
  await eventually(async () => eventsOf(ak, plan.id).some((e) => e.name === 'plan.completed'));
  const after: any = await t.throwsAsync(ak.act('plans.updateStep', { plan_id: plan.id, index: 0, status: 'pending' }));
  t.is(after.data.current_status, 'completed');
});

test('the dashboard counts goals and pending plans; deleting the workspace deletes its goals and plans', async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'confirm_changes', 'autonomous');
  const { ws: kept, agent: keptAgent } = await workspace(ak, 'confirm_changes', 'autonomous');
  const goal = await ak.createGoal(OWNER, { workspace_id: ws });
  const done = await ak.createGoal(OWNER, { workspace_id: ws });
  await ak.call(`/api/v1/goals/${done.id}`, { method: 'PUT', token: OWNER, json: { status: 'achieved' } });
  const plan = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, goal_id: goal.id, summary: 'Doomed', steps });
  const survivor = await ak.act('plans.propose', { workspace_id: kept, agent_id: keptAgent, summary: 'Kept', steps });
  const keptGoal = await ak.createGoal(OWNER, { workspace_id: kept });
  const dashboard = (await ak.call(`/api/v1/workspaces/${ws}`, { token: OWNER })).body.dashboard;
  t.deepEqual(dashboard.goals, { goals: { active: 1, achieved: 1, abandoned: 0 }, pending_plans: 1 });
  t.is((await ak.call(`/api/v1/goals?workspace_id=${ws}`, { token: OWNER })).body.total, 2, 'the page is cached now');

  t.is((await ak.call(`/api/v1/workspaces/${ws}`, { method: 'DELETE', token: OWNER })).status, 200);
  t.is((await ak.call(`/api/v1/workspaces/${ws}`, { method: 'DELETE', token: OWNER })).status, 204);
  await eventually(async () => (await ak.call(`/api/v1/plans/${plan.id}`, { token: OWNER })).status === 404);
  t.is((await ak.call(`/api/v1/goals/${goal.id}`, { token: OWNER })).status, 404);
  t.is((await ak.call(`/api/v1/goals?workspace_id=${ws}`, { token: OWNER })).body.total, 0);
  t.is((await ak.call(`/api/v1/plans/${survivor.id}`, { token: OWNER })).status, 200);
  t.is((await ak.call(`/api/v1/goals/${keptGoal.id}`, { token: OWNER })).status, 200);
});

test('a deleted goal leaves its plans, without the goal', async (t) => {
  const { ak } = fixture;
  const { ws, agent } = await workspace(ak, 'automatic', 'autonomous');
  const goal = await ak.createGoal(OWNER, { workspace_id: ws });
  const plan = await ak.act('plans.propose', { workspace_id: ws, agent_id: agent, goal_id: goal.id, summary: 'Orphan', steps });
  t.is((await ak.call(`/api/v1/goals/${goal.id}`, { method: 'DELETE', token: OWNER })).status, 204);
  const after = await ak.call(`/api/v1/plans/${plan.id}`, { token: OWNER });
  t.like(after.body, { goal_id: null, status: 'approved' });
  const doc = (await ak.call('/api/openapi.json')).body;
  t.true(compileWithAjv(doc.paths['/api/v1/plans/{plan_id}'].get.responses['200'].content['application/json'].schema)(after.body));
});
