import type { SseEvent } from './sse';

/** A tool call of the reply, with its result once it came. */
export interface ToolActivity {
  id: string;
  name: string;
  arguments: unknown;
  result?: { ok: boolean; error?: unknown };
}

export interface PendingApproval {
  run_id: string;
  step_id: string;
  tool: string | null;
  reason: string | null;
  /** `tool`: an agent's tool call; `workflow`: an approval wait of the chat entrypoint's workflow (no tool) */
  source: 'tool' | 'workflow';
}

/** A step of the chat entrypoint's workflow run (`workflow.step` frames), with where it stands. */
export interface WorkflowStepActivity {
  id: string;
  /** its node type, when the start frame said it */
  type: string | null;
  /** `running` once started, then how it ended (`completed`, `failed`, `waiting`...) */
  status: string;
  error?: { code: string; message: string };
}

export type StreamStatus = 'idle' | 'connecting' | 'streaming' | 'approval' | 'question' | 'complete' | 'interrupted' | 'failed' | 'stopped';

/** The reply in the order it happened: text of a model turn, the tool calls it made, a workflow's steps. */
export type ReplyPart = { kind: 'text'; text: string } | { kind: 'tool'; id: string } | { kind: 'step'; id: string };

/** What one assistant reply looks like while it streams, built from its frames only. */
export interface StreamState {
  status: StreamStatus;
  conversationId?: string;
  messageId?: string;
  runId?: string;
  /** text and tool calls in order of arrival */
  parts: ReplyPart[];
  tools: ToolActivity[];
  /** the steps of a workflow's run (a chat entrypoint's); none for an agent's */
  steps: WorkflowStepActivity[];
  approval?: PendingApproval;
  question?: string;
  error?: { status: number; code: string; title: string };
  /** the last durable frame's id: where a reconnect resumes (Last-Event-ID) */
  lastEventId?: number;
  /** the request itself was refused (an ApiError: 409 busy, 422, 413...) or no answer came */
  failure?: unknown;
}

export const initialStream: StreamState = { status: 'idle', parts: [], tools: [], steps: [] };

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The frame's JSON data, or undefined when it is not an object (such a frame is ignored). */
export function frameData(e: SseEvent): Record<string, unknown> | undefined {
  try {
    const data: unknown = JSON.parse(e.data);
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The chat stream's frames (plugins/chat README: message.start, text.delta, tool.call,
 * tool.result, approval.required, workflow.step, question, error, message.end) folded into the
 * reply's state.
 * A frame seen twice (a reconnect replaying a durable id) changes nothing.
 */
export function reduceStream(state: StreamState, e: SseEvent): StreamState {
  const d = frameData(e);
  if (!d) return state;
  const id = e.id !== undefined && /^\d+$/.test(e.id) ? Number(e.id) : undefined;
  // frames of one run event share its id (the tool calls of one model turn): only an older id is a replay
  if (id !== undefined && state.lastEventId !== undefined && id < state.lastEventId) return state;
  const next: StreamState = id !== undefined ? { ...state, lastEventId: id } : { ...state };
  switch (e.event) {
    case 'message.start':
      return { ...next, status: 'streaming', conversationId: str(d.conversation_id) ?? state.conversationId, messageId: str(d.message_id) ?? undefined, runId: str(d.run_id) ?? state.runId, approval: undefined, question: undefined, error: undefined };
    case 'text.delta':
      return { ...next, status: state.status === 'connecting' || state.status === 'idle' ? 'streaming' : next.status, parts: appendText(state.parts, str(d.text) ?? '') };
    case 'tool.call': {
      const callId = str(d.id) ?? `call-${state.tools.length + 1}`;
      if (state.tools.some((t) => t.id === callId)) return next;
      return { ...next, parts: [...state.parts, { kind: 'tool', id: callId }], tools: [...state.tools, { id: callId, name: str(d.name) ?? 'tool', arguments: d.arguments ?? {} }] };
    }
    case 'tool.result': {
      const callId = str(d.id);
      const result = { ok: d.ok === true, ...(d.error !== undefined ? { error: d.error } : {}) };
      if (callId && state.tools.some((t) => t.id === callId)) return { ...next, tools: next.tools.map((t) => (t.id === callId ? { ...t, result } : t)) };
      // the call came before this stream (an approved call whose run goes on here): shown by its result
      const id = callId ?? `result-${state.tools.length + 1}`;
      return { ...next, parts: [...state.parts, { kind: 'tool', id }], tools: [...state.tools, { id, name: str(d.name) ?? 'tool', arguments: undefined, result }] };
    }
    case 'approval.required': {
      const tool = str(d.tool);
      const approval: PendingApproval = { run_id: str(d.run_id) ?? state.runId ?? '', step_id: str(d.step_id) ?? '', tool, reason: str(d.reason), source: sourceOf(d.source, tool) };
      return { ...next, status: 'approval', runId: approval.run_id || state.runId, approval };
    }
    case 'workflow.step': {
      const stepId = str(d.step_id);
      return stepId ? { ...next, ...foldStep(state, stepId, d) } : next;
    }
    case 'question':
      return { ...next, status: 'question', question: str(d.text) ?? '' };
    case 'error': {
      const err = { status: typeof d.status === 'number' ? d.status : 500, code: str(d.code) ?? 'CHAT_ERR_RUN_FAILED', title: str(d.title) ?? 'The reply failed.' };
      return { ...next, status: 'failed', error: err };
    }
    case 'message.end': {
      const status = str(d.status);
      // a pause (approval or question) keeps its status: the stream ends but the run waits
      if (state.status === 'approval' || state.status === 'question') return next;
      const settled: StreamStatus = status === 'interrupted' ? 'interrupted' : status === 'failed' ? 'failed' : 'complete';
      return { ...next, status: state.status === 'failed' ? 'failed' : settled, parts: settleLastTurn(state.parts, str(d.text)) };
    }
    default:
      return state;
  }
}

/** an approval's source as sent, else told by its tool: a workflow's wait names none */
function sourceOf(source: unknown, tool: string | null): PendingApproval['source'] {
  return source === 'workflow' || source === 'tool' ? source : tool === null ? 'workflow' : 'tool';
}

/** A `workflow.step` frame: a step's start adds it (once, in order), its end sets how it ended. */
function foldStep(state: StreamState, stepId: string, d: Record<string, unknown>): Pick<StreamState, 'parts' | 'steps'> {
  const status = str(d.status) ?? 'completed';
  const e = d.error && typeof d.error === 'object' ? (d.error as Record<string, unknown>) : undefined;
  const error = e ? { code: str(e.code) ?? 'WORKFLOW_STEP_FAILED', message: str(e.message) ?? '' } : undefined;
  const known = state.steps.find((s) => s.id === stepId);
  if (known) {
    // a replayed start (a reconnect) does not undo how the step ended
    if (status === 'running') return { parts: state.parts, steps: state.steps };
    return { parts: state.parts, steps: state.steps.map((s) => (s.id === stepId ? { ...s, status, ...(error ? { error } : {}) } : s)) };
  }
  const step: WorkflowStepActivity = { id: stepId, type: str(d.type), status, ...(error ? { error } : {}) };
  return { parts: [...state.parts, { kind: 'step', id: stepId }], steps: [...state.steps, step] };
}

function appendText(parts: ReplyPart[], text: string): ReplyPart[] {
  if (!text) return parts;
  const last = parts.at(-1);
  if (last?.kind === 'text') return [...parts.slice(0, -1), { kind: 'text', text: last.text + text }];
  return [...parts, { kind: 'text', text }];
}

/** message.end carries the last model turn's stored text: it wins over what the deltas pieced together. */
function settleLastTurn(parts: ReplyPart[], text: string | null): ReplyPart[] {
  if (!text) return parts;
  const last = parts.at(-1);
  if (last?.kind === 'text') return last.text === text ? parts : [...parts.slice(0, -1), { kind: 'text', text }];
  return [...parts, { kind: 'text', text }];
}

/** The reply's whole text so far (every turn). */
export function replyText(state: StreamState): string {
  return state.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
}

/** A reconnect resumes after the last durable frame: the turn streaming since then comes again, so its partial text goes. */
export function forReconnect(state: StreamState): StreamState {
  const last = state.parts.at(-1);
  return { ...state, status: 'connecting', parts: last?.kind === 'text' ? state.parts.slice(0, -1) : state.parts };
}

/** What the live region says when the reply's status changes (undefined: say nothing). */
export function announcementFor(prev: StreamStatus, next: StreamStatus, state: StreamState): string | undefined {
  if (prev === next) return undefined;
  switch (next) {
    case 'connecting':
      return 'Sending your message';
    case 'streaming':
      return prev === 'connecting' || prev === 'idle' ? 'The agent is answering' : undefined;
    case 'approval':
      if (state.approval?.source === 'workflow') return `The workflow waits for your approval at step ${state.approval.step_id}`;
      return `The agent waits for your approval to use ${state.approval?.tool ?? 'a tool'}`;
    case 'question':
      return 'The agent asks you a question';
    case 'complete':
      return 'The reply is complete';
    case 'interrupted':
      return 'The reply was stopped; the partial answer is kept';
    case 'stopped':
      return 'Stopped';
    case 'failed':
      if (!state.messageId) return 'The message was not sent';
      return `The reply failed${state.error ? `: ${state.error.title}` : ''}`;
    default:
      return undefined;
  }
}

/** Whether the reply still streams (the stop button shows, the composer waits). */
export function isLive(status: StreamStatus): boolean {
  return status === 'connecting' || status === 'streaming';
}

/** The approval a conversation still waits for, from its stored `pending` (so a reload shows it). */
export function approvalFromPending(pending: { kind?: string; source?: string | null; run_id?: string; step_id?: string; tool?: string | null; reason?: string | null; text?: string | null } | null | undefined): PendingApproval | undefined {
  if (!pending || pending.kind !== 'approval' || !pending.run_id) return undefined;
  const tool = pending.tool ?? null;
  return { run_id: pending.run_id, step_id: pending.step_id ?? '', tool, reason: pending.reason ?? null, source: sourceOf(pending.source, tool) };
}


/** Everything that changes a reply's state: its frames, and what the page itself does. */
export type StreamAction =
  | { type: 'begin'; conversationId?: string }
  | { type: 'frame'; event: SseEvent }
  | { type: 'reconnecting' }
  | { type: 'stopped' }
  | { type: 'refused'; error: unknown }
  | { type: 'reset' };

export function streamReducer(state: StreamState, action: StreamAction): StreamState {
  switch (action.type) {
    case 'begin':
      return { ...initialStream, status: 'connecting', conversationId: action.conversationId };
    case 'frame':
      return reduceStream(state, action.event);
    case 'reconnecting':
      return forReconnect(state);
    case 'stopped':
      return isLive(state.status) ? { ...state, status: 'stopped' } : state;
    case 'refused':
      return { ...state, status: 'failed', failure: action.error };
    case 'reset':
      return initialStream;
  }
}
