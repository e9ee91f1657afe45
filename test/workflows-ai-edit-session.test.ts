import test from 'ava';
import { Readable } from 'node:stream';
import { extractJsonObject } from '../plugins/workflows/ai-edit/extract.ts';
import { changesFrom } from '../plugins/workflows/ai-edit/changes.ts';
import { runAiEdit, MAX_ROUNDS, type AiEditEvent } from '../plugins/workflows/ai-edit/session.ts';
import type { ChatMessage } from '../kernel/models-contract.ts';
import { requestMessage } from '../plugins/workflows/ai-edit/prompt.ts';

const ndjson = (lines: unknown[]) => Readable.from(lines.map((l) => `${JSON.stringify(l)}\n`));
const reply = (text: string) => ndjson([{ type: 'delta', text: text.slice(0, 5) }, { type: 'delta', text: text.slice(5) }, { type: 'done', text, model: 'm-1', api_key_id: 'k', usage: { input_tokens: 10, output_tokens: 3 } }]);
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

async function session(replies: Readable[], check: (d: Record<string, unknown>) => { problems: { field: string; message: string; type: string }[] }) {
  const events: AiEditEvent[] = [];
  const calls: ChatMessage[][] = [];
  const openModel = async (m: ChatMessage[]) => (calls.push(structuredClone(m)), replies.shift()!);
  const message = requestMessage('make it', undefined);
  await runAiEdit({ openModel, check: (d) => ({ body: d as never, problems: check(d).problems }), emit: (e) => events.push(e), closed: () => false }, { message, first: await openModel([message]) });
  return { events, calls, proposal: events.find((e) => e.type === 'ai.proposal')!.data as Extract<AiEditEvent, { type: 'ai.proposal' }>['data'] };
}

test('a valid first answer is proposed at once, with the deltas streamed', async (t) => {
  const { events, calls, proposal } = await session([reply(def([{ id: 'start' }]))], () => ({ problems: [] }));
  t.deepEqual(events.map((e) => e.type), ['ai.started', 'ai.delta', 'ai.delta', 'ai.proposal']);
  t.is(calls.length, 1);
  t.like(proposal, { valid: true, rounds: 1, model: 'm-1', usage: { input_tokens: 10, output_tokens: 3 } });
});

test('problems go back to the model, which repairs its draft', async (t) => {
  const { calls, proposal, events } = await session([reply(def([{ id: 'bad' }])), reply(def([{ id: 'good' }]))], (d) => ({ problems: (d.steps as { id: string }[])[0].id === 'bad' ? [{ field: 'steps[0]', message: 'wrong', type: 'x' }] : [] }));
  t.is(calls.length, 2);
  t.is(calls[1].length, 3);
  t.is(calls[1][1].role, 'assistant');
  t.regex(calls[1][2].content, /steps\[0\]: wrong/);
  t.like(events.find((e) => e.type === 'ai.round')!.data, { round: 1, valid: false });
  t.like(proposal, { valid: true, rounds: 2, usage: { input_tokens: 20, output_tokens: 6 } });
});

test('after the last round the invalid draft is proposed with its problems; an answer without JSON is asked again', async (t) => {
  const replies = [reply('I cannot.'), ...Array.from({ length: MAX_ROUNDS - 1 }, () => reply(def([{ id: 'bad' }])))];
  const { calls, proposal } = await session(replies, () => ({ problems: [{ field: 'steps', message: 'still wrong', type: 'x' }] }));
  t.is(calls.length, MAX_ROUNDS);
  t.regex(calls[1][2].content, /no JSON definition/);
  t.like(proposal, { valid: false, rounds: MAX_ROUNDS });
  t.deepEqual(proposal.problems, [{ field: 'steps', message: 'still wrong', type: 'x' }]);
});

test('when the last answer has no JSON, the earlier draft is proposed with its own problems and a note', async (t) => {
  const replies = [...Array.from({ length: MAX_ROUNDS - 1 }, () => reply(def([{ id: 'bad' }]))), reply('I give up.')];
  const { proposal } = await session(replies, () => ({ problems: [{ field: 'steps', message: 'still wrong', type: 'x' }] }));
  t.like(proposal, { valid: false, rounds: MAX_ROUNDS, definition: { name: 'w', steps: [{ id: 'bad' }] } });
  t.deepEqual(proposal.problems.map((p) => p.type), ['x', 'aiNoDefinition']);
});

test('a client gone while a repair call opens: that call is destroyed unread and nothing more is emitted', async (t) => {
  const events: AiEditEvent[] = [];
  let closed = false;
  const repair = reply(def([{ id: 'good' }]));
  const openModel = async () => {
    closed = true; // the client goes away during the await
    return repair;
  };
  const message = requestMessage('p', undefined);
  await runAiEdit({ openModel, check: () => ({ problems: [{ field: 'steps', message: 'wrong', type: 'x' }] }), emit: (e) => events.push(e), closed: () => closed }, { message, first: reply(def([{ id: 'bad' }])) });
  t.true(repair.destroyed);
  t.deepEqual(events.map((e) => e.type), ['ai.started', 'ai.delta', 'ai.delta', 'ai.round']);
});

test('a provider failure in the stream ends with ai.error and no proposal', async (t) => {
  const events: AiEditEvent[] = [];
  const first = ndjson([{ type: 'delta', text: 'x' }, { type: 'error', status: 502, code: 'MODELS_ERR_PROVIDER', message: 'overloaded' }]);
  await runAiEdit({ openModel: () => Promise.reject(new Error('no repair round')), check: () => ({ problems: [] }), emit: (e) => events.push(e), closed: () => false }, { message: requestMessage('p', undefined), first });
  t.deepEqual(events.map((e) => e.type), ['ai.started', 'ai.delta', 'ai.error']);
  t.like(events[2].data, { status: 502, code: 'MODELS_ERR_PROVIDER', detail: 'overloaded' });
});
