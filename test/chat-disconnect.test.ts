import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { useAgentKernel } from './helpers/agent-kernel.ts';
import { eventually } from './helpers/eventually.ts';
import { chatForm, readFrames, textOf } from './chat-support.ts';

const kernel = useAgentKernel(test, 'chat_disconnect', { MODEL_BASE_URL_ALLOW: '127.0.0.1/32' }, [['plugins', 'chat']]);

/** An OpenAI-compatible provider whose one streamed answer sends "Hello there" and then a delta each time the test asks, never finishing. */
async function slowProvider() {
  let answer: ServerResponse | undefined;
  const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'gpt-slow', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('Hello'));
      res.write(chunk(' there'));
      answer = res;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    more: () => answer?.write(chunk(' more')),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

test('a client that disconnects mid-stream stops the model stream; the partial answer is kept with status interrupted', async (t) => {
  const slow = await slowProvider();
  t.teardown(() => slow.close());
  const { workspace_id, agent_id: helper } = await kernel.ak.setup('owner-token');
  const key = await kernel.ak.call('/api/v1/api-keys', { method: 'POST', token: 'owner-token', json: { name: 'Slow', provider: 'openai', api_key: 'sk-slow-0123456789abcdef', default_model: 'gpt-slow', base_url: `${slow.url}/v1` } });
  t.is(key.status, 201, key.text);
  const agent = await kernel.ak.call('/api/v1/agents', { method: 'POST', token: 'owner-token', json: { name: 'Slow talker', workspace_id, api_key_id: key.body.id, tools: [] } });
  t.is(agent.status, 201, agent.text);

  const abort = new AbortController();
  const res = await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/stream`, { method: 'POST', headers: { Authorization: 'Bearer owner-token' }, body: chatForm({ message: 'Talk to me', agent_id: agent.body.id }), signal: abort.signal });
  t.is(res.status, 200);
  const frames = await readFrames(res, (_f, all) => textOf(all) === 'Hello there', abort);
  t.is(textOf(frames), 'Hello there');
  const { conversation_id, message_id, run_id } = frames[0].data;

  // the provider goes on streaming; the run notices the interrupt at its next delta
  const settled = await eventually(async () => {
    slow.more();
    const page = await kernel.ak.call(`/api/v1/chat/conversations/${conversation_id}/messages`, { token: 'owner-token' });
    const reply = page.body.items.find((m: { id: string }) => m.id === message_id);
    return reply?.status !== 'streaming' ? reply : undefined;
  }, { timeoutMs: 20_000 });
  t.truthy(settled, 'the reply was settled');
  t.is(settled.status, 'interrupted');
  t.regex(settled.content, /^Hello there( more)*$/);
  t.is(settled.run_id, run_id);
  const run = await kernel.ak.call(`/api/v1/workflows/runs/${run_id}`, { token: 'owner-token' });
  t.is(run.body.status, 'completed');
  t.is(run.body.output.stop_reason, 'interrupted');

  // the conversation goes on: the next message is answered (and sees the partial answer as history)
  kernel.ak.provider.replies.push({ text: 'Sorry, go on.' });
  const next = await kernel.ak.call('/api/v1/chat/message', { method: 'POST', token: 'owner-token', json: { message: 'You stopped?', conversation_id, agent_id: helper } });
  t.is(next.status, 200, next.text);
  t.is(next.body.message.content, 'Sorry, go on.');
  t.regex(JSON.stringify(kernel.ak.provider.requests.at(-1)!.body.messages), /Hello there/);
});

test('a client that disconnects while the provider stalls mid-stream cuts the provider call at once; the partial answer is kept', async (t) => {
  const { workspace_id } = await kernel.ak.setup('owner-token');
  const agent = await kernel.ak.call('/api/v1/agents', { method: 'POST', token: 'owner-token', json: { name: 'Stalling talker', workspace_id, tools: [] } });
  t.is(agent.status, 201, agent.text);
  // two deltas, then the provider sends nothing more and never finishes
  kernel.ak.provider.replies.push({ chunks: ['Hello', ' there'], stall_after_chunks: true });
  const asked = kernel.ak.provider.nextRequest();
  const abort = new AbortController();
  const res = await fetch(`${kernel.ak.kernel.apiUrl}/api/v1/chat/stream`, { method: 'POST', headers: { Authorization: 'Bearer owner-token' }, body: chatForm({ message: 'Talk, then stall', agent_id: agent.body.id }), signal: abort.signal });
  t.is(res.status, 200);
  const frames = await readFrames(res, (_f, all) => textOf(all) === 'Hello there', abort);
  t.is(textOf(frames), 'Hello there');
  const { conversation_id, message_id, run_id } = frames[0].data;
  const request = await asked;

  // no delta will come: only the disconnect itself can end the provider call
  await kernel.ak.provider.closed(request);
  t.pass('the provider saw its connection closed');
  const settled = await eventually(async () => {
    const page = await kernel.ak.call(`/api/v1/chat/conversations/${conversation_id}/messages`, { token: 'owner-token' });
    const reply = page.body.items.find((m: { id: string }) => m.id === message_id);
    return reply?.status !== 'streaming' ? reply : undefined;
  }, { timeoutMs: 20_000 });
  t.like(settled, { status: 'interrupted', content: 'Hello there', run_id });
  const run = await kernel.ak.call(`/api/v1/workflows/runs/${run_id}`, { token: 'owner-token' });
  t.like(run.body, { status: 'completed', output: { stop_reason: 'interrupted', text: 'Hello there' } });
});
