import test from 'ava';
import { useAgentKernel } from './helpers/agent-kernel.ts';

const kernel = useAgentKernel(test, 'agent_routes');
const OWNER = 'owner-token';

test.serial("GET /agents/{id}/tools lists the bound tools with the policy the runtime applies in a workspace", async (t) => {
  const { agent_id, workspace_id } = await kernel.ak.setup(OWNER, { tools: ['datetime', 'tasks', 'not_loaded'] });
  await kernel.ak.call(`/api/v1/workspaces/${workspace_id}/governance`, { method: 'PUT', token: OWNER, json: { rules: [{ tool: 'tasks', decision: 'ask' }] } });
  const res = await kernel.ak.call(`/api/v1/agents/${agent_id}/tools`, { token: OWNER });
  t.is(res.status, 200, res.text);
  const byName = Object.fromEntries(res.body.items.map((i: { name: string }) => [i.name, i]));
  t.like(byName.datetime, { available: true, risk: 'low', side_effect: 'none', policy: { decision: 'allow' } });
  t.like(byName.tasks, { available: true, policy: { decision: 'ask' } });
  t.like(byName.not_loaded, { available: false, policy: { decision: 'deny' } });
  t.is((await kernel.ak.call(`/api/v1/agents/${agent_id}/tools`, { token: 'other-token' })).status, 404);
  t.is((await kernel.ak.call(`/api/v1/agents/${agent_id}/tools?workspace_id=nope`, { token: OWNER })).status, 422);
});

const draft = { name: 'Triage', description: 'Sorts tickets', instructions: 'Read each ticket and file a task.', tools: ['tasks'], max_rounds: 6 };

test.serial('POST /agents/generate answers a draft checked against the agent schema and stores nothing unless asked', async (t) => {
  await kernel.ak.setup(OWNER);
  kernel.ak.provider.replies.push({ text: JSON.stringify(draft) });
  const res = await kernel.ak.call('/api/v1/agents/generate', { method: 'POST', token: OWNER, json: { prompt: 'An agent that triages support tickets' } });
  t.is(res.status, 200, res.text);
  t.like(res.body, { saved: false, rounds: 1, draft });
  const before = (await kernel.ak.call('/api/v1/agents?q=Triage', { token: OWNER })).body.total;
  t.is(before, 0);
  kernel.ak.provider.replies.push({ text: JSON.stringify({ ...draft, tools: ['rm_rf'] }) });
  kernel.ak.provider.replies.push({ text: JSON.stringify(draft) });
  const saved = await kernel.ak.call('/api/v1/agents/generate', { method: 'POST', token: OWNER, json: { prompt: 'Triage again', save: true } });
  t.is(saved.status, 201, saved.text);
  t.like(saved.body, { saved: true, rounds: 2, agent: { name: 'Triage', tools: ['tasks'] } });
  const repair = JSON.stringify(kernel.ak.provider.requests.at(-1)!.body);
  t.regex(repair, /not a valid agent/);
});

test.serial('an answer still invalid after the repair turn is a 502 naming the problems', async (t) => {
  kernel.ak.provider.replies.push({ text: '{"name": ""}' });
  kernel.ak.provider.replies.push({ text: 'not json at all' });
  const res = await kernel.ak.call('/api/v1/agents/generate', { method: 'POST', token: OWNER, json: { prompt: 'whatever' } });
  t.is(res.status, 502, res.text);
  t.is(res.body.code, 'AGENTS_ERR_GENERATION_INVALID');
  t.is((await kernel.ak.call('/api/v1/agents/generate', { method: 'POST', token: OWNER, json: { prompt: '' } })).status, 422);
  t.is((await kernel.ak.call('/api/v1/agents/generate', { method: 'POST', token: OWNER, json: { prompt: 'x', extra: 1 } })).status, 422);
});
