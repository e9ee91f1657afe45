import { api } from '../../api/client';
import { streamOf } from '../../api/stream';

/** What a chat message sends: the multipart fields of POST /api/v1/chat/stream. */
export interface ChatSend {
  message: string;
  conversation_id?: string;
  agent_id?: string;
  workspace_id?: string;
  workspace_context?: boolean;
  files?: File[];
}

/** The multipart form of a message (files as repeated `files` parts; empty fields left out). */
export function chatForm(send: ChatSend): FormData {
  const form = new FormData();
  form.append('message', send.message);
  if (send.conversation_id) form.append('conversation_id', send.conversation_id);
  if (send.agent_id) form.append('agent_id', send.agent_id);
  if (send.workspace_id) form.append('workspace_id', send.workspace_id);
  if (send.workspace_context) form.append('workspace_context', 'true');
  for (const f of send.files ?? []) form.append('files', f, f.name);
  return form;
}

/** POST /api/v1/chat/stream: the reply as SSE, signed in by the session cookie like every call. */
export function openChatStream(send: ChatSend, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  const form = chatForm(send);
  return streamOf(
    api.POST('/api/v1/chat/stream', {
      // the generated body type follows the route's multipart schema; the form is built above
      body: {} as never,
      bodySerializer: () => form,
      parseAs: 'stream',
      signal,
    }),
  );
}

/** GET /api/v1/chat/runs/{run_id}/events after an event id: the rest of a reply (after an approval, or a cut connection). */
export function followRun(runId: string, lastEventId: number | undefined, signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
  return streamOf(
    api.GET('/api/v1/chat/runs/{run_id}/events', {
      params: { path: { run_id: runId }, query: lastEventId !== undefined ? { last_event_id: lastEventId } : {} },
      parseAs: 'stream',
      signal,
    }),
  );
}
