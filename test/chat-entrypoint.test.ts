import test from 'ava';
import { useAgentKernel } from './helpers/agent-kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { chatForm, readFrames, textOf } from './chat-support.ts';
import { kernelOf } from '../kernel/context.ts';

// A workspace's chat entrypoint: a workflow binding with chat_entrypoint answers the workspace's
// chat, and its run's progress (steps, approvals, the reply) is projected into the conversation.
const kernel = useAgentKernel(test, 'chat_entrypoint', {}, [['plugins', 'chat'], ['nodes', 'transform'], ['nodes', 'wait']]);

const OWNER = 'owner-token';
const MEMBER = 'member-token';
const OTHER = 'other-token';

let ctx: { workspace_id: string; agent_id: string; key_id: string } | undefined;
const setup = async () => (ctx ??= await kernel.ak.setup(OWNER));
const call = (path: string, token: string, init: { method?: string; json?: unknown } = {}) => kernel.ak.call(path, { token, ...init });
const post = (path: string, token: string, json: unknown) => call(path, token, { method: 'POST', json });

async function workflow(name: string, steps: unknown[]): Promise<string> {
  const created = await post('/api/v1/workflows', OWNER, { name, steps });
  if (created.status !== 201) throw new Error(created.text);
  return created.body.id;
}

async function bind(workflowId: string, workspaceId: string, extra: Record<string, unknown> = {}) {
  return post('/api/v1/workflows/bindings', OWNER, { workflow_id: workflowId, workspace_id: workspaceId, trigger: 'manual', chat_entrypoint: true, ...extra });
}

const ECHO = [
  { id: 'start', type: 'trigger', next: ['shape'] },
  { id: 'shape', type: 'transform', config: { set: { reply: 'Echo: {{trigger.message}}' } }, next: [] },
];

const GATED = [
  { id: 'start', type: 'trigger', next: ['gate'] },
  { id: 'gate', type: 'wait', config: { wait_type: 'approval', message: 'Send the refund?' }, next: ['done'] },
  { id: 'done', type: 'transform', config: { set: { reply: 'Refund sent for {{trigger.message}}' } }, next: [] },
];

test.serial('a message to the workspace thread runs its chat entrypoint: the reply is the run output, the stream shows its steps', async (t) => {
  const { workspace_id } = await setup();
  const binding = await bind(await workflow('Echo', ECHO), workspace_id);
  t.is(binding.status, 201, binding.text);
  t.true(binding.body.chat_entrypoint);

  const posted = await post(`/api/v1/workspaces/${workspace_id}/chat/messages`, MEMBER, { message: 'hello {{x}}' });
  t.is(posted.status, 200, posted.text);
  t.like(posted.body.message, { role: 'assistant', status: 'complete', content: 'Echo: hello {{x}}', workflow_id: binding.body.workflow_id });
  const run = await call(`/api/v1/workflows/runs/${posted.body.run_id}`, MEMBER);
  t.is(run.status, 200, run.text);
  t.like(run.body, { trigger_type: 'chat', binding_id: binding.body.id, owner_id: 'u-member', status: 'completed' });

  const res = await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/stream`, { method: 'POST', headers: { Authorization: `Bearer ${OWNER}` }, body: chatForm({ message: 'again', workspace_id }) });
  t.is(res.status, 200);
  const frames = await readFrames(res);
  const steps = frames.filter((f) => f.event === 'workflow.step').map((f) => `${f.data.step_id}:${f.data.status}`);
  t.true(steps.includes('shape:running') && steps.includes('shape:completed'), steps.join(','));
  t.is(steps.filter((s) => s === 'shape:running').length, 1, 'a step starts once in the stream');
  t.like(frames.at(-1)!.data, { status: 'complete', text: 'Echo: again' });
  t.is(kernel.ak.provider.requests.filter((r) => JSON.stringify(r.body).includes('again')).length, 0, 'no model was asked');

  const choose = await post('/api/v1/agents', OWNER, { name: 'Helper', instructions: 'Help.', workspace_id, tools: [] });
  kernel.ak.provider.replies.push({ text: 'The agent answers.' });
  const withAgent = await post('/api/v1/chat/message', OWNER, { message: 'Who answers?', workspace_id, agent_id: choose.body.id });
  t.is(withAgent.status, 200, withAgent.text);
  t.like(withAgent.body.message, { content: 'The agent answers.', workflow_id: null });
  await call(`/api/v1/workflows/bindings/${binding.body.id}`, OWNER, { method: 'DELETE' });
});

test.serial('one enabled chat entrypoint per workspace: a second is 409 naming the first; disabled ones do not count', async (t) => {
  const { workspace_id } = await setup();
  const wf = await workflow('Echo twice', ECHO);
  const first = await bind(wf, workspace_id);
  t.is(first.status, 201, first.text);
  const second = await bind(wf, workspace_id);
  t.is(second.status, 409, second.text);
  t.like(second.body, { code: 'WORKFLOWS_ERR_CHAT_ENTRYPOINT_TAKEN', binding_id: first.body.id });
  const plain = await bind(wf, workspace_id, { chat_entrypoint: false });
  t.is(plain.status, 201, plain.text);
  t.is((await call(`/api/v1/workflows/bindings/${plain.body.id}`, OWNER, { method: 'PUT', json: { chat_entrypoint: true } })).status, 409);
  const disabled = await call(`/api/v1/workflows/bindings/${first.body.id}`, OWNER, { method: 'PUT', json: { enabled: false } });
  t.is(disabled.status, 200, disabled.text);
  const moved = await call(`/api/v1/workflows/bindings/${plain.body.id}`, OWNER, { method: 'PUT', json: { chat_entrypoint: true } });
  t.is(moved.status, 200, moved.text);
  t.true(moved.body.chat_entrypoint);
  t.is((await bind(wf, workspace_id, { enabled: false })).status, 201, 'a disabled entrypoint may wait beside the enabled one');
  for (const id of [first.body.id, plain.body.id]) await call(`/api/v1/workflows/bindings/${id}`, OWNER, { method: 'DELETE' });
  const list = await call(`/api/v1/workflows/bindings?workspace_id=${workspace_id}`, OWNER);
  for (const b of list.body.items) await call(`/api/v1/workflows/bindings/${b.id}`, OWNER, { method: 'DELETE' });
});

test.serial("a workflow's approval wait is projected: the conversation waits, only the run owner decides it in the chat, then the reply comes", async (t) => {
  const { workspace_id } = await setup();
  const binding = await bind(await workflow('Refunds', GATED), workspace_id);
  t.is(binding.status, 201, binding.text);
  const res = await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/stream`, { method: 'POST', headers: { Authorization: `Bearer ${OWNER}` }, body: chatForm({ message: 'order 42', workspace_id }) });
  const frames = await readFrames(res);
  const approval = frames.find((f) => f.event === 'approval.required');
  t.truthy(approval, frames.map((f) => f.event).join(','));
  t.like(approval!.data, { step_id: 'gate', source: 'workflow', reason: 'Send the refund?', tool: null });
  t.like(frames.at(-1)!.data, { status: 'complete', text: 'Send the refund?' });
  const { conversation_id, run_id } = frames[0].data;
  const conversation = (await call('/api/v1/chat/conversations', OWNER)).body.items.find((c: { id: string }) => c.id === conversation_id);
  t.like(conversation.pending, { kind: 'approval', source: 'workflow', run_id, step_id: 'gate', workflow_id: binding.body.workflow_id });

  const busy = await post('/api/v1/chat/message', OWNER, { message: 'and?', conversation_id });
  t.is(busy.status, 409);
  t.regex(busy.body.detail, /workflow waits for an approval/);
  // a direct conversation is its user's: another member does not see it at all
  t.is((await post(`/api/v1/chat/conversations/${conversation_id}/approval`, MEMBER, { decision: 'approve' })).status, 404);
  t.is((await post(`/api/v1/chat/conversations/${conversation_id}/approval`, OTHER, { decision: 'approve' })).status, 404);
  t.is((await call(`/api/v1/workflows/runs/${run_id}`, OWNER)).body.status, 'paused', 'refused decisions leave the run paused');

  const decided = await post(`/api/v1/chat/conversations/${conversation_id}/approval`, OWNER, { decision: 'approve', comment: 'ok' });
  t.is(decided.status, 200, decided.text);
  const later = await readFrames(await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/runs/${run_id}/events`, { headers: { Authorization: `Bearer ${OWNER}`, 'Last-Event-ID': String(approval!.id) } }));
  t.like(later.at(-1)!.data, { message_id: decided.body.message.id, status: 'complete', text: 'Refund sent for order 42' });
  t.true(later.some((f) => f.event === 'workflow.step' && f.data.step_id === 'done' && f.data.status === 'completed'));
  t.is((await call(`/api/v1/workflows/runs/${run_id}`, OWNER)).body.status, 'completed');
  await call(`/api/v1/workflows/bindings/${binding.body.id}`, OWNER, { method: 'DELETE' });
});

test.serial('in the shared workspace thread, a member who did not start the run cannot decide its approval (403); deciding on the run itself also frees the thread', async (t) => {
  const { workspace_id } = await setup();
  const binding = await bind(await workflow('Refunds 2', GATED), workspace_id);
  const posted = await post(`/api/v1/workspaces/${workspace_id}/chat/messages`, OWNER, { message: 'order 7' });
  t.is(posted.status, 200, posted.text);
  t.like(posted.body.message, { content: 'Send the refund?', pause: { kind: 'approval', source: 'workflow' } });
  const thread = posted.body.conversation_id;
  const refused = await post(`/api/v1/chat/conversations/${thread}/approval`, MEMBER, { decision: 'approve' });
  t.is(refused.status, 403, refused.text);
  t.is((await call(`/api/v1/workflows/runs/${posted.body.run_id}`, OWNER)).body.status, 'paused');
  // the owner approves on the run's own route, not in the chat: the reply still settles, and the thread is free again
  const resumed = await post(`/api/v1/workflows/runs/${posted.body.run_id}/resume`, OWNER, { decision: 'approve' });
  t.is(resumed.status, 200, resumed.text);
  await eventually(async () => (await call(`/api/v1/workflows/runs/${posted.body.run_id}`, OWNER)).body.status === 'completed');
  // its continuation is projected into the thread as the run's next message
  const threadItems = async () => (await call(`/api/v1/workspaces/${workspace_id}/chat/messages`, MEMBER)).body.items as { content: string; status: string }[];
  await eventually(async () => (await threadItems()).some((m) => m.content === 'Refund sent for order 7' && m.status === 'complete'));
  const projected = (await threadItems()).at(-1);
  t.like(projected, { role: 'assistant', run_id: posted.body.run_id, content: 'Refund sent for order 7', pause: null });
  const next = await post(`/api/v1/workspaces/${workspace_id}/chat/messages`, MEMBER, { message: 'order 8' });
  t.is(next.status, 200, next.text);
  t.like(next.body.message, { content: 'Send the refund?' });
  await call(`/api/v1/workflows/runs/${next.body.run_id}/cancel`, OWNER, { method: 'POST' });
  await call(`/api/v1/workflows/bindings/${binding.body.id}`, OWNER, { method: 'DELETE' });
});

test.serial('an agent step inside the entrypoint streams its text into the conversation', async (t) => {
  const { workspace_id } = await setup();
  const binding = await bind(await workflow('Agentic', [
    { id: 'start', type: 'trigger', next: ['think'] },
    { id: 'think', type: 'agent', config: { prompt: '{{trigger.message}}', tools: [] }, next: [] },
  ]), workspace_id);
  t.is(binding.status, 201, binding.text);
  kernel.ak.provider.replies.push({ text: 'Thinking out loud.' });
  const res = await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/stream`, { method: 'POST', headers: { Authorization: `Bearer ${OWNER}` }, body: chatForm({ message: 'think', workspace_id }) });
  const frames = await readFrames(res);
  t.is(textOf(frames), 'Thinking out loud.');
  t.like(frames.at(-1)!.data, { status: 'complete', text: 'Thinking out loud.' });
  t.true(frames.some((f) => f.event === 'workflow.step' && f.data.step_id === 'think'));
  await call(`/api/v1/workflows/bindings/${binding.body.id}`, OWNER, { method: 'DELETE' });
});

test.serial("a projection that fails (the conversation's store refuses the settlement) never discards the paused run: it stays parked and decidable, and the next reader settles the reply", async (t) => {
  const { workspace_id } = await setup();
  const binding = await bind(await workflow('Refunds 3', GATED), workspace_id);
  t.is(binding.status, 201, binding.text);
  const db = kernelOf(kernel.ak.kernel.broker).db;
  await db.query(`
    CREATE TABLE refuse_projection (on_purpose boolean);
    CREATE FUNCTION refuse_projection() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM refuse_projection) THEN RAISE EXCEPTION 'the projection is refused by the test'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_projection BEFORE UPDATE ON chat_messages FOR EACH ROW EXECUTE FUNCTION refuse_projection();
    INSERT INTO refuse_projection VALUES (true);`);
  try {
    const res = await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/stream`, { method: 'POST', headers: { Authorization: `Bearer ${OWNER}` }, body: chatForm({ message: 'order 9', workspace_id }) });
    t.is(res.status, 200);
    const frames = await readFrames(res);
    const { conversation_id, run_id, message_id } = frames[0].data;
    t.truthy(frames.find((f) => f.event === 'approval.required'), frames.map((f) => f.event).join(','));
    const messages = async () => (await call(`/api/v1/chat/conversations/${conversation_id}/messages`, OWNER)).body.items as { id: string; status: string; content: string }[];
    t.is((await messages()).find((m) => m.id === message_id)?.status, 'streaming', 'the reply could not be settled');
    const run = await call(`/api/v1/workflows/runs/${run_id}`, OWNER);
    t.like(run.body, { status: 'paused' }, 'the run is parked, not failed or cancelled');

    await db.query('DELETE FROM refuse_projection');
    // the next reader (a reconnect to the run's events) settles the reply from the run
    const replay = await readFrames(await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/runs/${run_id}/events`, { headers: { Authorization: `Bearer ${OWNER}` } }));
    t.like(replay.at(-1)!.data, { message_id, status: 'complete', text: 'Send the refund?' });
    t.like((await messages()).find((m) => m.id === message_id), { status: 'complete', content: 'Send the refund?' });
    const conversation = (await call('/api/v1/chat/conversations', OWNER)).body.items.find((c: { id: string }) => c.id === conversation_id);
    t.like(conversation.pending, { kind: 'approval', source: 'workflow', run_id, step_id: 'gate' });
    const decided = await post(`/api/v1/chat/conversations/${conversation_id}/approval`, OWNER, { decision: 'approve' });
    t.is(decided.status, 200, decided.text);
    t.true(await eventually(async () => (await call(`/api/v1/workflows/runs/${run_id}`, OWNER)).body.status === 'completed'));
    t.like((await call(`/api/v1/workflows/runs/${run_id}`, OWNER)).body.output, { reply: 'Refund sent for order 9' });
  } finally {
    await db.query('DROP TRIGGER IF EXISTS refuse_projection ON chat_messages; DROP FUNCTION IF EXISTS refuse_projection(); DROP TABLE IF EXISTS refuse_projection;');
    await call(`/api/v1/workflows/bindings/${binding.body.id}`, OWNER, { method: 'DELETE' });
  }
});
