import type { ConversationRow, MessageRow } from './store.ts';

const iso = (d: Date | string): string => new Date(d).toISOString();
const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableString = { type: ['string', 'null'] } as const;

export function conversationView(c: ConversationRow) {
  return {
    id: c.id,
    kind: c.kind,
    title: c.title,
    user_id: c.user_id,
    workspace_id: c.workspace_id,
    agent_id: c.agent_id,
    pending: c.pending ?? null,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

export function messageView(m: MessageRow) {
  return {
    id: m.id,
    conversation_id: m.conversation_id,
    role: m.role,
    content: m.content,
    files: (m.files ?? []).map((f) => ({ filename: f.filename, media_type: f.media_type, size: f.size })),
    user_id: m.user_id,
    run_id: m.run_id,
    workflow_id: m.workflow_id ?? null,
    status: m.status,
    usage: m.usage ?? null,
    pause: m.pause ?? null,
    error: m.error ?? null,
    created_at: iso(m.created_at),
  };
}

const PENDING_SCHEMA = {
  type: ['object', 'null'],
  description: "What the conversation's run waits for: `approval` (decide it with POST .../approval) or `question` (the next message answers it).",
  properties: {
    kind: { type: 'string', enum: ['approval', 'question'] },
    run_id: { type: 'string' },
    step_id: { type: 'string' },
    tool: nullableString,
    reason: nullableString,
    text: nullableString,
    source: { type: 'string', enum: ['tool', 'workflow'], description: "An approval's origin: `tool` (an agent's tool call, decided under the workspace's policy) or `workflow` (an approval wait of the chat entrypoint's workflow, decided by the member who started the run)." },
    workflow_id: { ...nullableString, description: "The chat entrypoint's workflow whose run waits (null for an agent's run)." },
  },
};

export const CONVERSATION_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    kind: { type: 'string', enum: ['direct', 'workspace'] },
    title: { type: 'string', description: 'The first message, cut at 80 characters.' },
    user_id: nullableString,
    workspace_id: nullableString,
    agent_id: nullableString,
    pending: PENDING_SCHEMA,
    created_at: dateTime,
    updated_at: dateTime,
  },
  required: ['id', 'kind', 'title', 'workspace_id', 'agent_id', 'pending', 'created_at', 'updated_at'],
};

export const MESSAGE_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    conversation_id: { type: 'string', format: 'uuid' },
    role: { type: 'string', enum: ['user', 'assistant'] },
    content: { type: 'string' },
    files: { type: 'array', items: { type: 'object', properties: { filename: { type: 'string' }, media_type: { type: 'string' }, size: { type: 'integer' } }, required: ['filename', 'media_type', 'size'] } },
    user_id: { ...nullableString, description: 'Who posted a user message.' },
    run_id: { ...nullableString, description: 'The agent run an assistant message comes from (GET /api/v1/workflows/runs/{run_id}).' },
    workflow_id: { ...nullableString, description: "Set when the workspace's chat entrypoint (a workflow binding with `chat_entrypoint: true`) answered: the workflow whose run `run_id` is. Its stream shows the run's steps (`workflow.step` frames); its text is what an agent step said, else the run's output." },
    status: { type: 'string', enum: ['complete', 'streaming', 'interrupted', 'failed'], description: 'streaming: the run is still answering; interrupted: the client went away (or the run was cancelled) and the partial answer was kept.' },
    usage: { type: ['object', 'null'], properties: { input_tokens: { type: 'integer' }, output_tokens: { type: 'integer' } } },
    pause: PENDING_SCHEMA,
    error: { type: ['object', 'null'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
    created_at: dateTime,
  },
  required: ['id', 'conversation_id', 'role', 'content', 'files', 'run_id', 'status', 'created_at'],
};

export const REPLY_SCHEMA = {
  type: 'object',
  properties: {
    conversation_id: { type: 'string', format: 'uuid' },
    run_id: { type: 'string' },
    user_message: MESSAGE_SCHEMA,
    message: { ...MESSAGE_SCHEMA, description: 'The assistant message: settled (200), or still `streaming` (202: the run goes on; read it later from the conversation or follow GET /chat/runs/{run_id}/events).' },
  },
  required: ['conversation_id', 'run_id', 'user_message', 'message'],
};
