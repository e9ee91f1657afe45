import test from 'ava';
import type { Readable } from 'node:stream';
import { extractJsonObject } from '../plugins/workflows/ai-edit/extract.ts';
import { changesFrom } from '../plugins/workflows/ai-edit/changes.ts';
import { runAiEdit, MAX_ROUNDS, type AiEditEvent } from '../plugins/workflows/ai-edit/session.ts';
import type { ChatMessage } from '../kernel/models-contract.ts';
import { requestMessage } from '../plugins/workflows/ai-edit/prompt.ts';
import { startModelsKernel, USERS, type ModelsKernel } from './helpers/models-kernel.ts';
import type { TextReply } from './helpers/scripted-provider.ts';

// every model call of the session goes through plugins/models (the SDK) to a scripted provider over HTTP
let mk: ModelsKernel;
test.before(async () => {
  mk = await startModelsKernel('ai_edit_session');
  await mk.addKey('owner-token', { is_default: true });
});
test.after.always(async () => mk?.close());
// a test's unused replies are not the next one's
test.beforeEach(() => void (mk.provider.replies.length = 0));

/** models.chatStream, as the ai-edit action opens it */
const openStream = (messages: ChatMessage[]): Promise<Readable> => mk.kernel.broker.call('models.chatStream', { messages }, { meta: { user: USERS.owner }, timeout: 0 }) as Promise<Readable>;
/** a scripted answer streamed in two deltas */
const reply = (text: string): TextReply => ({ chunks: [text.slice(0, 5), text.slice(5)], model: 'm-1', usage: { input_tokens: 10, output_tokens: 3 } });
const def = (steps: unknown[]) => `Done.\n\`\`\`json\n${JSON.stringify({ name: 'w', steps })}\n\`\`\``;

test('the definition is read from the last fenced block, else the first balanced object', (t) => {
  t.deepEqual(extractJsonObject('x ```json\n{"a":1}\n``` then ```json\n{"b":"}"}\n```'), { b: '}' });
  t.deepEqual(extractJsonObject('Here: {"a": {"b": "{"}} and {"c": 2}'), { a: { b: '{' } });
  t.is(extractJsonObject('no json at all'), undefined);
  t.is(extractJsonObject('```json\n[1,2]\n```'), undefined);
  t.is(extractJsonObject('{broken'), undefined);
});

test('changes name the steps added, removed and changed', (t) => {
  const base = { name: 'w', steps: [{ id: 'a', type: 'trigger', config: {}, next: ['b'] }, { id: 'b', type: 'note', config: {}, next: [] }] };
  t.deepEqual(changesFrom(base, { steps: [{ id: 'a', type: 'trigger', config: {}, next: ['c'] }, { id: 'c', type: 'note', config: {}, next: [] }] }), { added: ['c'], removed: ['b'], changed: ['a'] });
  t.deepEqual(changesFrom(undefined, { steps: [{ id: 'a', type: 'trigger', config: {}, next: [] }] }), { added: ['a'], removed: [], changed: [] });
});

async function session(replies: TextReply[], check: (d: Record<string, unknown>) => { problems: { field: string; message: string; type: string }[] }) {
  mk.provider.replies.push(...replies);
  const events: AiEditEvent[] = [];
  const calls: ChatMessage[][] = [];
  const openModel = async (m: ChatMessage[]) => (calls.push(structuredClone(m)), openStream(m));
  const message = requestMessage('make it', undefined);
  await runAiEdit({ openModel, check: (d) => ({ body: d as never, problems: check(d).problems }), emit: (e) => events.push(e), closed: () => false }, { message, first: await openModel([message]) });
  return { events, calls, proposal: events.find((e) => e.type === 'ai.proposal')!.data as Extract<AiEditEvent, { type: 'ai.proposal' }>['data'] };
}

test.serial('a valid first answer is proposed at once, with the deltas streamed', async (t) => {
  const { events, calls, proposal } = await session([reply(def([{ id: 'start' }]))], () => ({ problems: [] }));
  t.deepEqual(events.map((e) => e.type), ['ai.started', 'ai.delta', 'ai.delta', 'ai.proposal']);
  t.is(calls.length, 1);
  t.like(proposal, { valid: true, rounds: 1, model: 'm-1', usage: { input_tokens: 10, output_tokens: 3 } });
});

test.serial('problems go back to the model, which repairs its draft', async (t) => {
  const { calls, proposal, events } = await session([reply(def([{ id: 'bad' }])), reply(def([{ id: 'good' }]))], (d) => ({ problems: (d.steps as { id: string }[])[0].id === 'bad' ? [{ field: 'steps[0]', message: 'wrong', type: 'x' }] : [] }));
  t.is(calls.length, 2);
  t.is(calls[1].length, 3);
  t.is(calls[1][1].role, 'assistant');
  t.regex(calls[1][2].content, /steps\[0\]: wrong/);
  t.like(events.find((e) => e.type === 'ai.round')!.data, { round: 1, valid: false });
  t.like(proposal, { valid: true, rounds: 2, usage: { input_tokens: 20, output_tokens: 6 } });
});

test.serial('after the last round the invalid draft is proposed with its problems; an answer without JSON is asked again', async (t) => {
  const replies = [reply('I cannot.'), ...Array.from({ length: MAX_ROUNDS - 1 }, () => reply(def([{ id: 'bad' }])))];
  const { calls, proposal } = await session(replies, () => ({ problems: [{ field: 'steps', message: 'still wrong', type: 'x' }] }));
  t.is(calls.length, MAX_ROUNDS);
  t.regex(calls[1][2].content, /no JSON definition/);
  t.like(proposal, { valid: false, rounds: MAX_ROUNDS });
  t.deepEqual(proposal.problems, [{ field: 'steps', message: 'still wrong', type: 'x' }]);
});

test.serial('when the last answer has no JSON, the earlier draft is proposed with its own problems and a note', async (t) => {
  const replies = [...Array.from({ length: MAX_ROUNDS - 1 }, () => reply(def([{ id: 'bad' }]))), reply('I give up.')];
  const { proposal } = await session(replies, () => ({ problems: [{ field: 'steps', message: 'still wrong', type: 'x' }] }));
  t.like(proposal, { valid: false, rounds: MAX_ROUNDS, definition: { name: 'w', steps: [{ id: 'bad' }] } });
  t.deepEqual(proposal.problems.map((p) => p.type), ['x', 'aiNoDefinition']);
});

test.serial('a client gone while a repair call opens: that call is destroyed unread and nothing more is emitted', async (t) => {
  const events: AiEditEvent[] = [];
  let closed = false;
  let repair: Readable | undefined;
  mk.provider.replies.push(reply(def([{ id: 'bad' }])), reply(def([{ id: 'good' }])));
  const openModel = async (m: ChatMessage[]) => {
    const asked = mk.provider.nextRequest();
    repair = await openStream(m);
    await asked;
    closed = true; // the client goes away during the await
    return repair;
  };
  const message = requestMessage('p', undefined);
  await runAiEdit({ openModel, check: () => ({ problems: [{ field: 'steps', message: 'wrong', type: 'x' }] }), emit: (e) => events.push(e), closed: () => closed }, { message, first: await openStream([message]) });
  t.true(repair!.destroyed);
  t.deepEqual(events.map((e) => e.type), ['ai.started', 'ai.delta', 'ai.delta', 'ai.round']);
});

test.serial('a provider failure in the stream ends with ai.error and no proposal', async (t) => {
  const events: AiEditEvent[] = [];
  mk.provider.replies.push({ chunks: ['x'], stream_error: 'overloaded' });
  const message = requestMessage('p', undefined);
  await runAiEdit({ openModel: () => Promise.reject(new Error('no repair round')), check: () => ({ problems: [] }), emit: (e) => events.push(e), closed: () => false }, { message, first: await openStream([message]) });
  t.deepEqual(events.map((e) => e.type), ['ai.started', 'ai.delta', 'ai.error']);
  t.like(events[2].data, { code: 'MODELS_ERR_PROVIDER' });
  t.regex(String((events[2].data as { detail?: unknown }).detail), /overloaded/);
});
