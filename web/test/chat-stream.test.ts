import { describe, expect, it } from 'vitest';
import { announcementFor, approvalFromPending, initialStream, replyText, streamReducer, type StreamAction, type StreamState } from '../src/pages/chat/chat-stream';

const frame = (event: string, data: unknown, id?: number): StreamAction => ({ type: 'frame', event: { event, data: JSON.stringify(data), ...(id !== undefined ? { id: String(id) } : {}) } });
const run = (actions: StreamAction[], from: StreamState = initialStream): StreamState => actions.reduce(streamReducer, from);

const START = frame('message.start', { conversation_id: 'c-1', message_id: 'm-1', run_id: 'r-1' });

describe('a reply folded from its frames', () => {
  it('streams text, shows a tool call as it happens and its result, then the next turn, in order', () => {
    const s = run([
      { type: 'begin' },
      START,
      frame('text.delta', { text: 'Let me ' }),
      frame('text.delta', { text: 'check.' }),
      frame('tool.call', { id: 'call_1', name: 'datetime', arguments: { op: 'now' } }, 4),
    ]);
    expect(s.status).toBe('streaming');
    expect(s.tools).toEqual([{ id: 'call_1', name: 'datetime', arguments: { op: 'now' } }]);
    const done = run([frame('tool.result', { id: 'call_1', name: 'datetime', ok: true }, 5), frame('text.delta', { text: 'It is noon.' }), frame('message.end', { message_id: 'm-1', text: 'It is noon.', status: 'complete' })], s);
    expect(done.parts).toEqual([{ kind: 'text', text: 'Let me check.' }, { kind: 'tool', id: 'call_1' }, { kind: 'text', text: 'It is noon.' }]);
    expect(done.tools[0]!.result).toEqual({ ok: true });
    expect(done.status).toBe('complete');
    expect(done.lastEventId).toBe(5);
    expect(replyText(done)).toBe('Let me check.It is noon.');
  });

  it('after an approval the stream goes on with the approved call\'s result: shown by its result', () => {
    const s = run([{ type: 'begin', conversationId: 'c-1' }, frame('message.start', { conversation_id: 'c-1', message_id: 'm-2', run_id: 'r-1' }), frame('tool.result', { id: 'call_t', name: 'tasks', ok: true }, 9), frame('text.delta', { text: 'Filed.' })]);
    expect(s.parts).toEqual([{ kind: 'tool', id: 'call_t' }, { kind: 'text', text: 'Filed.' }]);
    expect(s.tools).toEqual([{ id: 'call_t', name: 'tasks', arguments: undefined, result: { ok: true } }]);
  });

  it('the tool calls of one model turn share its frame id: each is shown', () => {
    const s = run([START, frame('tool.call', { id: 'a', name: 'datetime', arguments: {} }, 4), frame('tool.call', { id: 'b', name: 'tasks', arguments: {} }, 4), frame('tool.result', { id: 'a', name: 'datetime', ok: true }, 5), frame('tool.call', { id: 'a', name: 'datetime', arguments: {} }, 4)]);
    expect(s.tools.map((t) => t.id)).toEqual(['a', 'b']);
    expect(s.tools[0]!.result).toEqual({ ok: true });
  });

  it('a tool that failed keeps its error', () => {
    const s = run([START, frame('tool.call', { id: 'c', name: 'http_request', arguments: {} }, 1), frame('tool.result', { id: 'c', name: 'http_request', ok: false, error: 'blocked address' }, 2)]);
    expect(s.tools[0]!.result).toEqual({ ok: false, error: 'blocked address' });
  });

  it('approval.required parks the reply; message.end after it does not call it complete', () => {
    const s = run([START, frame('tool.call', { id: 't', name: 'tasks', arguments: { op: 'create' } }, 3), frame('approval.required', { run_id: 'r-1', step_id: 'agent', tool: 'tasks', reason: 'policy asks' }, 4), frame('message.end', { message_id: 'm-1', text: '', status: 'complete' })]);
    expect(s.status).toBe('approval');
    expect(s.approval).toEqual({ run_id: 'r-1', step_id: 'agent', tool: 'tasks', reason: 'policy asks', source: 'tool' });
    expect(announcementFor('streaming', 'approval', s)).toMatch(/approval to use tasks/);
  });

  it("a chat entrypoint workflow's steps show as they start and end, in order with an agent step's text and tools", () => {
    const s = run([
      START,
      frame('workflow.step', { step_id: 'start', type: 'trigger', status: 'running' }),
      frame('workflow.step', { step_id: 'start', status: 'completed' }, 3),
      frame('workflow.step', { step_id: 'answer', type: 'agent', status: 'running' }),
      frame('text.delta', { text: 'Looking.' }),
      frame('tool.call', { id: 'c1', name: 'datetime', arguments: {} }, 5),
      frame('workflow.step', { step_id: 'answer', status: 'completed' }, 7),
      frame('workflow.step', { step_id: 'post', type: 'http', status: 'running' }),
      frame('workflow.step', { step_id: 'post', status: 'failed', error: { code: 'HTTP_502', message: 'bad gateway' } }, 9),
    ]);
    expect(s.parts).toEqual([{ kind: 'step', id: 'start' }, { kind: 'step', id: 'answer' }, { kind: 'text', text: 'Looking.' }, { kind: 'tool', id: 'c1' }, { kind: 'step', id: 'post' }]);
    expect(s.steps).toEqual([
      { id: 'start', type: 'trigger', status: 'completed' },
      { id: 'answer', type: 'agent', status: 'completed' },
      { id: 'post', type: 'http', status: 'failed', error: { code: 'HTTP_502', message: 'bad gateway' } },
    ]);
    // a reconnect replaying a step's start does not undo how it ended
    const again = run([{ type: 'reconnecting' }, START, frame('workflow.step', { step_id: 'post', type: 'http', status: 'running' })], s);
    expect(again.steps.find((x) => x.id === 'post')!.status).toBe('failed');
    expect(again.parts.filter((p) => p.kind === 'step')).toHaveLength(3);
  });

  it("a workflow's approval wait (no tool) is the workflow's, not a tool's", () => {
    const s = run([START, frame('workflow.step', { step_id: 'sign_off', type: 'approval', status: 'running' }), frame('workflow.step', { step_id: 'sign_off', status: 'waiting' }, 3), frame('approval.required', { run_id: 'r-1', step_id: 'sign_off', tool: null, reason: 'Check the refund', source: 'workflow' }, 4), frame('message.end', { message_id: 'm-1', text: 'Check the refund', status: 'complete' })]);
    expect(s.status).toBe('approval');
    expect(s.approval).toEqual({ run_id: 'r-1', step_id: 'sign_off', tool: null, reason: 'Check the refund', source: 'workflow' });
    expect(s.steps).toEqual([{ id: 'sign_off', type: 'approval', status: 'waiting' }]);
    expect(announcementFor('streaming', 'approval', s)).toBe('The workflow waits for your approval at step sign_off');
    // an older server sending no source: a wait naming no tool is still the workflow's
    const old = run([START, frame('approval.required', { run_id: 'r-1', step_id: 'sign_off', tool: null, reason: null }, 4)]);
    expect(old.approval!.source).toBe('workflow');
  });

  it('a question waits for the answer', () => {
    const s = run([START, frame('question', { text: 'Which printer?' }, 2), frame('message.end', { status: 'complete', text: 'Which printer?' })]);
    expect(s.status).toBe('question');
    expect(s.question).toBe('Which printer?');
  });

  it('an error frame fails the reply with its code and title', () => {
    const s = run([START, frame('error', { status: 502, code: 'CHAT_ERR_STREAM_CUT', title: 'cut' }), frame('message.end', { status: 'complete', text: '' })]);
    expect(s.status).toBe('failed');
    expect(s.error).toEqual({ status: 502, code: 'CHAT_ERR_STREAM_CUT', title: 'cut' });
  });

  it('a durable frame replayed after a reconnect changes nothing; the streaming turn is read again', () => {
    const before = run([START, frame('tool.call', { id: 'a', name: 'datetime', arguments: {} }, 4), frame('tool.result', { id: 'a', name: 'datetime', ok: true }, 5), frame('text.delta', { text: 'It is' })]);
    const resumed = run([{ type: 'reconnecting' }, START, frame('tool.result', { id: 'a', name: 'datetime', ok: true }, 5), frame('text.delta', { text: 'It is noon.' }), frame('message.end', { text: 'It is noon.', status: 'complete' })], before);
    expect(resumed.tools).toHaveLength(1);
    expect(resumed.parts).toEqual([{ kind: 'tool', id: 'a' }, { kind: 'text', text: 'It is noon.' }]);
    expect(resumed.lastEventId).toBe(5);
  });

  it('message.end text wins over deltas pieced together; an interrupted reply says so', () => {
    const s = run([START, frame('text.delta', { text: 'Partial ans' }), frame('message.end', { text: 'Partial answer', status: 'interrupted' })]);
    expect(replyText(s)).toBe('Partial answer');
    expect(s.status).toBe('interrupted');
  });

  it('frames that are not JSON objects, and unknown frames, are ignored', () => {
    const s = run([START, { type: 'frame', event: { event: 'text.delta', data: 'not json' } }, frame('text.delta', ['x']), frame('future.frame', { x: 1 })]);
    expect(s.parts).toEqual([]);
  });

  it('stop ends a live reply only', () => {
    expect(run([{ type: 'begin' }, START, { type: 'stopped' }]).status).toBe('stopped');
    expect(run([START, frame('message.end', { text: 'x', status: 'complete' }), { type: 'stopped' }]).status).toBe('complete');
  });
});

describe('a pending approval from the stored conversation', () => {
  it('shows after a reload; a question or nothing is no approval', () => {
    expect(approvalFromPending({ kind: 'approval', run_id: 'r', step_id: 's', tool: 'tasks', reason: null })).toEqual({ run_id: 'r', step_id: 's', tool: 'tasks', reason: null, source: 'tool' });
    expect(approvalFromPending({ kind: 'approval', source: 'workflow', run_id: 'r', step_id: 'sign_off', tool: null, reason: 'Check it' })).toEqual({ run_id: 'r', step_id: 'sign_off', tool: null, reason: 'Check it', source: 'workflow' });
    expect(approvalFromPending({ kind: 'question', run_id: 'r', text: '?' })).toBeUndefined();
    expect(approvalFromPending(null)).toBeUndefined();
    expect(approvalFromPending({ kind: 'approval' })).toBeUndefined();
  });
});
