import test from 'ava';
import { useAgentKernel } from './helpers/agent-kernel.ts';
import { chatForm, readFrames, textOf, type SseFrame } from './chat-support.ts';

const kernel = useAgentKernel(test, 'chat_messages', {}, [['plugins', 'chat']]);

const OWNER = 'owner-token';
const MEMBER = 'member-token';
const OTHER = 'other-token';

let ctx: { workspace_id: string; agent_id: string; key_id: string } | undefined;
async function setup() {
  ctx ??= await kernel.ak.setup(OWNER);
  return ctx;
}

const post = (path: string, token: string, json: unknown) => kernel.ak.call(path, { method: 'POST', token, json });
const messagesOf = (request: { body: any }) => request.body.messages as { role: string; content: any }[];

async function stream(token: string, fields: Record<string, string>, files: Parameters<typeof chatForm>[1] = [], stop?: (f: SseFrame, all: SseFrame[]) => boolean) {
  const res = await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/stream`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: chatForm(fields, files) });
  return { res, frames: res.ok ? await readFrames(res, stop) : [], problem: res.ok ? undefined : await res.json() };
}

test.serial('a message gets its reply; the conversation keeps both, and the next message sends the history', async (t) => {
  await setup();
  kernel.ak.provider.replies.push({ text: 'Hi there!' });
  const first = await post('/api/v1/chat/message', OWNER, { message: 'Hello {{trigger}}' });
  t.is(first.status, 200, first.text);
  t.like(first.body.message, { role: 'assistant', status: 'complete', content: 'Hi there!' });
  t.like(first.body.user_message, { role: 'user', content: 'Hello {{trigger}}', status: 'complete' });
  const sent = kernel.ak.provider.requests.at(-1)!.body;
  t.truthy(messagesOf({ body: sent }).find((m) => m.role === 'user' && JSON.stringify(m.content).includes('Hello {{trigger}}')), 'braces in a message are not read as templates');
  t.deepEqual((sent.tools ?? []).map((x: { function: { name: string } }) => x.function.name), ['ask_human'], 'a plain assistant has no tools');
  const conversation = first.body.conversation_id;

  kernel.ak.provider.replies.push({ text: 'You said hello.' });
  const second = await post('/api/v1/chat/message', OWNER, { message: 'What did I say?', conversation_id: conversation });
  t.is(second.status, 200, second.text);
  t.is(second.body.conversation_id, conversation);
  const history = messagesOf(kernel.ak.provider.requests.at(-1)!).filter((m) => m.role !== 'system');
  t.deepEqual(history.slice(0, 2).map((m) => m.role), ['user', 'assistant']);
  t.regex(JSON.stringify(history[1].content), /Hi there!/);

  const list = await kernel.ak.call('/api/v1/chat/conversations', { token: OWNER });
  t.is(list.status, 200, list.text);
  t.like(list.body.items[0], { id: conversation, kind: 'direct', title: 'Hello {{trigger}}' });
  const messages = await kernel.ak.call(`/api/v1/chat/conversations/${conversation}/messages`, { token: OWNER });
  t.deepEqual(messages.body.items.map((m: { role: string; status: string }) => `${m.role}:${m.status}`), ['user:complete', 'assistant:complete', 'user:complete', 'assistant:complete']);
  t.is(messages.body.total, 4);
  const executions = await kernel.ak.call(`/api/v1/executions?conversation_id=${conversation}`, { token: OWNER });
  t.is(executions.body.total, 2);
  t.is(executions.body.items[0].reason, 'chat');
});

test.serial('workspace_context puts the workspace into the system prompt; without a workspace it is 422 naming workspace_id', async (t) => {
  const { workspace_id } = await setup();
  const missing = await post('/api/v1/chat/message', OWNER, { message: 'Where am I?', workspace_context: true });
  t.is(missing.status, 422, missing.text);
  t.is(missing.body.errors[0].field, 'workspace_id');
  kernel.ak.provider.replies.push({ text: 'In Ops.' });
  const res = await post('/api/v1/chat/message', OWNER, { message: 'Where am I?', workspace_context: true, workspace_id });
  t.is(res.status, 200, res.text);
  const system = JSON.stringify(kernel.ak.provider.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === 'system'));
  t.regex(system, /Name: Ops/);
  t.regex(system, /Operating model: .*autonomy_level/);
  const foreign = await post('/api/v1/chat/message', OTHER, { message: 'Peek', workspace_id });
  t.is(foreign.status, 404, "another entity's workspace is not found");
});

test.serial('bad input is 422 naming the field, on the JSON route and the stream', async (t) => {
  const cases: [unknown, string][] = [
    [{}, 'message'],
    [{ message: '' }, 'message'],
    [{ message: '   ' }, 'message'],
    [{ message: 5 }, 'message'],
    [{ message: 'x'.repeat(100_001) }, 'message'],
    [{ message: 'hi', workspace_context: 'maybe' }, 'workspace_context'],
    [{ message: 'hi', conversation_id: 'nope' }, 'conversation_id'],
    [{ message: 'hi', agent_id: 42 }, 'agent_id'],
    [{ message: 'hi', colour: 'blue' }, 'colour'],
  ];
  for (const [body, field] of cases) {
    const res = await post('/api/v1/chat/message', OWNER, body);
    t.is(res.status, 422, `${JSON.stringify(body).slice(0, 60)}: ${res.text.slice(0, 200)}`);
    t.true(res.body.errors.some((e: { field: string }) => e.field === field), `${field} named in ${res.text.slice(0, 300)}`);
  }
  for (const [fields, field] of [[{}, 'message'], [{ message: '' }, 'message'], [{ message: 'hi', workspace_context: 'maybe' }, 'workspace_context'], [{ message: 'hi', colour: 'blue' }, 'colour']] as const) {
    const { res, problem } = await stream(OWNER, fields as Record<string, string>);
    t.is(res.status, 422, JSON.stringify(problem));
    t.true(problem.errors.some((e: { field: string }) => e.field === field));
  }
  const json = await post('/api/v1/chat/stream', OWNER, { message: 'hi' });
  t.is(json.status, 415, 'the stream takes multipart/form-data');
  const approval = await post('/api/v1/chat/conversations/0197c0de-0000-7000-8000-000000000000/approval', OWNER, { decision: 'maybe' });
  t.is(approval.status, 422);
  t.is(approval.body.errors[0].field, 'decision');
});

test.serial('the stream sends its frames in order, durable ones with the run event seq as id; a tool call shows as tool.call and tool.result', async (t) => {
  const { agent_id, workspace_id } = await setup();
  kernel.ak.provider.replies.push({ text: 'Let me check.', tool_calls: [{ id: 'call_dt', name: 'datetime', arguments: { op: 'now', zone: 'UTC' } }] });
  kernel.ak.provider.replies.push({ chunks: ['It is', ' noon', '.'] });
  const { res, frames } = await stream(OWNER, { message: 'What time is it?', agent_id, workspace_id });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const kinds = frames.map((f) => f.event);
  t.is(kinds[0], 'message.start');
  t.is(kinds.at(-1), 'message.end');
  const call = frames.find((f) => f.event === 'tool.call')!;
  const result = frames.find((f) => f.event === 'tool.result')!;
  t.like(call.data, { id: 'call_dt', name: 'datetime', arguments: { op: 'now', zone: 'UTC' } });
  t.like(result.data, { id: 'call_dt', name: 'datetime', ok: true });
  t.true(kinds.indexOf('tool.call') < kinds.indexOf('tool.result'));
  t.true(kinds.lastIndexOf('text.delta') > kinds.indexOf('tool.result'));
  t.true(Number.isInteger(call.id) && Number.isInteger(result.id) && result.id! > call.id!, 'durable frames carry increasing ids');
  t.true(frames.filter((f) => f.event === 'text.delta' || f.event === 'message.start' || f.event === 'message.end').every((f) => f.id === undefined), 'live frames have no id');
  t.is(textOf(frames), 'Let me check.It is noon.');
  const start = frames[0].data;
  const end = frames.at(-1)!.data;
  t.like(end, { message_id: start.message_id, text: 'It is noon.', status: 'complete' });
  t.true(end.usage.input_tokens > 0);
  const stored = await kernel.ak.call(`/api/v1/chat/conversations/${start.conversation_id}/messages`, { token: OWNER });
  t.like(stored.body.items[1], { id: start.message_id, status: 'complete', content: 'It is noon.', run_id: start.run_id });
});

test.serial('a tool needing approval: approval.required ends the stream, the chat route approves, the run goes on; a reconnect with Last-Event-ID gets only the later frames', async (t) => {
  const { workspace_id } = await setup();
  const agent = await post('/api/v1/agents', OWNER, { name: 'Clerk', instructions: 'You file tasks.', workspace_id, tools: ['tasks'] });
  t.is(agent.status, 201, agent.text);
  const gov = await kernel.ak.call(`/api/v1/workspaces/${workspace_id}/governance`, { method: 'PUT', token: OWNER, json: { rules: [{ tool: 'tasks', decision: 'ask' }] } });
  t.is(gov.status, 200, gov.text);
  kernel.ak.provider.replies.push({ text: 'I will file it.', tool_calls: [{ id: 'call_t', name: 'tasks', arguments: { op: 'create', title: 'Order toner' } }] });
  const first = await stream(OWNER, { message: 'Order toner', agent_id: agent.body.id, workspace_id });
  const kinds = first.frames.map((f) => f.event);
  t.deepEqual(kinds.slice(-3), ['tool.call', 'approval.required', 'message.end'], kinds.join(','));
  const approval = first.frames.find((f) => f.event === 'approval.required')!;
  const { run_id, conversation_id } = first.frames[0].data;
  t.like(approval.data, { run_id, tool: 'tasks' });
  t.truthy(approval.id);
  t.like(first.frames.at(-1)!.data, { status: 'complete', text: 'I will file it.' });
  const conv = (await kernel.ak.call(`/api/v1/chat/conversations/${conversation_id}/messages`, { token: OWNER })).body;
  t.like(conv.items.at(-1).pause, { kind: 'approval', run_id, tool: 'tasks' });
  const busy = await post('/api/v1/chat/message', OWNER, { message: 'and?', conversation_id });
  t.is(busy.status, 409);
  t.is(busy.body.code, 'CHAT_ERR_APPROVAL_PENDING');
  const before = await kernel.ak.call(`/api/v1/tasks?workspace=${workspace_id}&q=toner`, { token: OWNER });
  t.is(before.body.total, 0, 'nothing ran before the approval');

  kernel.ak.provider.replies.push({ text: 'Filed.' });
  const decided = await post(`/api/v1/chat/conversations/${conversation_id}/approval`, OWNER, { decision: 'approve' });
  t.is(decided.status, 200, decided.text);
  t.like(decided.body, { run_id, decision: 'approve' });
  const again = await post(`/api/v1/chat/conversations/${conversation_id}/approval`, OWNER, { decision: 'approve' });
  t.is(again.status, 409);
  t.is(again.body.code, 'CHAT_ERR_NO_PENDING_APPROVAL');

  const lastId = approval.id!;
  const res = await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/runs/${run_id}/events`, { headers: { Authorization: `Bearer ${OWNER}`, 'Last-Event-ID': String(lastId) } });
  t.is(res.status, 200);
  const later = await readFrames(res);
  t.is(later[0].event, 'message.start');
  t.is(later[0].data.message_id, decided.body.message.id);
  t.true(later.filter((f) => f.id !== undefined).every((f) => f.id! > lastId), 'only frames after Last-Event-ID');
  t.false(later.some((f) => f.event === 'tool.call' || f.event === 'approval.required'), 'nothing before it is repeated');
  t.like(later.find((f) => f.event === 'tool.result')?.data, { id: 'call_t', name: 'tasks', ok: true });
  t.like(later.at(-1)!.data, { message_id: decided.body.message.id, status: 'complete', text: 'Filed.' });
  const after = await kernel.ak.call(`/api/v1/tasks?workspace=${workspace_id}&q=toner`, { token: OWNER });
  t.is(after.body.items.filter((x: { title: string }) => x.title === 'Order toner').length, 1, 'the approved call ran once');
  // the whole run, replayed from the start: both segments
  const all = await readFrames(await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/runs/${run_id}/events?last_event_id=0`, { headers: { Authorization: `Bearer ${OWNER}` } }));
  t.deepEqual(all.filter((f) => f.id !== undefined).map((f) => f.event), ['tool.call', 'approval.required', 'tool.result']);
  t.is(textOf(all), 'I will file it.Filed.');
  await kernel.ak.call(`/api/v1/workspaces/${workspace_id}/governance`, { method: 'PUT', token: OWNER, json: { rules: [] } });
});

test.serial("the agent's question is answered by the next message, which resumes the run", async (t) => {
  kernel.ak.provider.replies.push({ text: '', tool_calls: [{ name: 'ask_human', arguments: { question: 'Which floor?' } }] });
  const first = await stream(OWNER, { message: 'Fix the printer' });
  const question = first.frames.find((f) => f.event === 'question');
  t.like(question?.data, { text: 'Which floor?' });
  t.truthy(question?.id);
  t.like(first.frames.at(-1)!.data, { status: 'complete', text: 'Which floor?' });
  const { conversation_id, run_id } = first.frames[0].data;
  kernel.ak.provider.replies.push({ text: 'Fixed the one on floor 2.' });
  const answered = await post('/api/v1/chat/message', OWNER, { message: 'floor 2', conversation_id });
  t.is(answered.status, 200, answered.text);
  t.like(answered.body, { run_id, message: { status: 'complete', content: 'Fixed the one on floor 2.' } });
  t.regex(JSON.stringify(messagesOf(kernel.ak.provider.requests.at(-1)!).find((m) => m.role === 'tool')?.content), /floor 2/);
});

test.serial('a 20 MB attachment is refused with 413 and nothing is stored; a small file reaches the model', async (t) => {
  const before = (await kernel.ak.call('/api/v1/chat/conversations', { token: OWNER })).body.total;
  const big = await stream(OWNER, { message: 'Read this' }, [{ name: 'big.bin', type: 'application/octet-stream', body: new Uint8Array(20 * 1024 * 1024) }]);
  t.is(big.res.status, 413);
  t.like(big.problem, { status: 413, code: 'PAYLOAD_TOO_LARGE' });
  t.is((await kernel.ak.call('/api/v1/chat/conversations', { token: OWNER })).body.total, before);
  kernel.ak.provider.replies.push({ text: 'It says hello.' });
  const small = await stream(OWNER, { message: 'What does the note say?' }, [{ name: 'note.txt', type: 'text/plain', body: 'hello from the note' }]);
  t.is(small.res.status, 200);
  t.like(small.frames.at(-1)!.data, { status: 'complete', text: 'It says hello.' });
  t.regex(JSON.stringify(messagesOf(kernel.ak.provider.requests.at(-1)!)), /hello from the note/);
  const stored = await kernel.ak.call(`/api/v1/chat/conversations/${small.frames[0].data.conversation_id}/messages`, { token: OWNER });
  t.deepEqual(stored.body.items[0].files, [{ filename: 'note.txt', media_type: 'text/plain', size: 19 }]);
});

test.serial("another user's conversation, and another entity's, is 404 on every route", async (t) => {
  kernel.ak.provider.replies.push({ text: 'Secret answer.' });
  const mine = await post('/api/v1/chat/message', OWNER, { message: 'My secret' });
  const { conversation_id, run_id } = mine.body;
  for (const token of [MEMBER, OTHER]) {
    const list = await kernel.ak.call('/api/v1/chat/conversations', { token });
    t.false(list.body.items.some((c: { id: string }) => c.id === conversation_id));
    t.is((await kernel.ak.call(`/api/v1/chat/conversations/${conversation_id}/messages`, { token })).status, 404);
    t.is((await post(`/api/v1/chat/conversations/${conversation_id}/approval`, token, { decision: 'approve' })).status, 404);
    t.is((await post('/api/v1/chat/message', token, { message: 'me too', conversation_id })).status, 404);
    t.is((await stream(token, { message: 'me too', conversation_id })).res.status, 404);
    t.is((await kernel.ak.call(`/api/v1/chat/runs/${run_id}/events`, { token })).status, 404);
    t.is((await kernel.ak.call(`/api/v1/chat/conversations/${conversation_id}`, { method: 'DELETE', token })).status, 404);
  }
  const removed = await kernel.ak.call(`/api/v1/chat/conversations/${conversation_id}`, { method: 'DELETE', token: OWNER });
  t.is(removed.status, 204);
  t.is((await kernel.ak.call(`/api/v1/chat/conversations/${conversation_id}/messages`, { token: OWNER })).status, 404);
});

test.serial("the workspace thread: one shared conversation, answered by the workspace's master agent, read by members", async (t) => {
  const { workspace_id } = await setup();
  const master = await post('/api/v1/agents', OWNER, { name: 'Lead', instructions: 'You lead the Ops workspace.', workspace_id, is_master: true, tools: [] });
  t.is(master.status, 201, master.text);
  const empty = await kernel.ak.call(`/api/v1/workspaces/${workspace_id}/chat/messages`, { token: MEMBER });
  t.is(empty.status, 200, empty.text);
  t.is(empty.body.total, 0);
  kernel.ak.provider.replies.push({ text: 'Morning, team.' });
  const posted = await post(`/api/v1/workspaces/${workspace_id}/chat/messages`, OWNER, { message: 'Good morning' });
  t.is(posted.status, 200, posted.text);
  t.like(posted.body.message, { content: 'Morning, team.', status: 'complete' });
  t.regex(JSON.stringify(kernel.ak.provider.requests.at(-1)!.body.messages), /You lead the Ops workspace/);
  kernel.ak.provider.replies.push({ text: 'Hello member.' });
  const second = await post(`/api/v1/workspaces/${workspace_id}/chat/messages`, MEMBER, { message: 'Hi all' });
  t.is(second.status, 200, second.text);
  t.is(second.body.conversation_id, posted.body.conversation_id, 'one thread per workspace');
  const read = await kernel.ak.call(`/api/v1/workspaces/${workspace_id}/chat/messages`, { token: MEMBER });
  t.deepEqual(read.body.items.map((m: { content: string }) => m.content), ['Good morning', 'Morning, team.', 'Hi all', 'Hello member.']);
  t.deepEqual(read.body.items.filter((m: { role: string }) => m.role === 'user').map((m: { user_id: string }) => m.user_id), ['u-owner', 'u-member']);
  t.is((await kernel.ak.call(`/api/v1/workspaces/${workspace_id}/chat/messages`, { token: OTHER })).status, 404);
  t.is((await post(`/api/v1/workspaces/${workspace_id}/chat/messages`, OTHER, { message: 'hi' })).status, 404);
  const bad = await post(`/api/v1/workspaces/${workspace_id}/chat/messages`, MEMBER, { message: '' });
  t.is(bad.status, 422);
  await kernel.ak.call(`/api/v1/agents/${master.body.id}`, { method: 'DELETE', token: OWNER });
});

test.serial('workflows.runEventStream and workflows.awaitRun: a run of the caller entity replayed to its end; another entity gets 404', async (t) => {
  kernel.ak.provider.replies.push({ text: 'Replayed.' });
  const res = await post('/api/v1/chat/message', OWNER, { message: 'Something to replay' });
  const broker = kernel.ak.kernel.broker;
  const as = (entity: string) => ({ meta: { user: { id: 'u-owner', entity_id: entity, role: 'owner' } } });
  const run = await broker.call<any, any>('workflows.awaitRun', { run_id: res.body.run_id, seconds: 5 }, as('e-1'));
  t.like(run, { id: res.body.run_id, status: 'completed' });
  t.true(run.seq > 0);
  const stream = await broker.call<NodeJS.ReadableStream, any>('workflows.runEventStream', { run_id: res.body.run_id, after: 0 }, as('e-1'));
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  t.is(lines.at(-1).type, 'done');
  t.is(lines.at(-2).type, 'run.finished');
  t.is(lines.at(-2).id, run.seq);
  t.truthy(lines.find((l) => l.type === 'agent.message' && l.data.text === 'Replayed.'));
  const later = await broker.call<NodeJS.ReadableStream, any>('workflows.runEventStream', { run_id: res.body.run_id, after: run.seq - 1 }, as('e-1'));
  let tail = '';
  for await (const chunk of later) tail += chunk.toString();
  t.deepEqual(tail.trim().split('\n').map((l) => JSON.parse(l).type), ['run.finished', 'done']);
  await t.throwsAsync(broker.call('workflows.runEventStream', { run_id: res.body.run_id }, as('e-2')), { message: /No workflow run/ });
  await t.throwsAsync(broker.call('workflows.awaitRun', { run_id: res.body.run_id, seconds: 0 }, as('e-2')), { message: /No workflow run/ });
});

test.serial('every chat route is in /api/openapi.json with a summary and its responses; the stream takes multipart', async (t) => {
  const doc = (await kernel.ak.call('/api/openapi.json', { token: OWNER })).body;
  const ops = [
    ['/api/v1/chat/message', 'post'], ['/api/v1/chat/stream', 'post'], ['/api/v1/chat/runs/{run_id}/events', 'get'],
    ['/api/v1/chat/conversations', 'get'], ['/api/v1/chat/conversations/{conversation_id}/messages', 'get'],
    ['/api/v1/chat/conversations/{conversation_id}', 'delete'], ['/api/v1/chat/conversations/{conversation_id}/approval', 'post'],
    ['/api/v1/workspaces/{workspace_id}/chat/messages', 'get'], ['/api/v1/workspaces/{workspace_id}/chat/messages', 'post'],
  ];
  for (const [path, method] of ops) {
    const op = doc.paths[path]?.[method];
    t.truthy(op, `${method} ${path}`);
    t.truthy(op.summary);
    t.true(Object.keys(op.responses).some((s) => /^2\d\d$/.test(s)), `${method} ${path} declares its answer`);
  }
  const stream = doc.paths['/api/v1/chat/stream'].post;
  t.truthy(stream.requestBody.content['multipart/form-data']);
  t.regex(stream.description, /approval\.required/);
});
