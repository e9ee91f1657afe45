import { addUserMessage, startConversation } from './message-writes.ts';
import type { Caller, ConversationRow, MessageRow, StoredFile } from './store.ts';
import type { ChatService } from './service.ts';

export interface TurnRequest {
  message: string;
  workspace_context: boolean;
  conversation_id?: string;
  agent_id?: string;
  workspace_id?: string;
  files: StoredFile[];
}

/** A message taken: its conversation, the stored user message, the streaming assistant message, and where its run's events start. */
export interface Turn {
  conversation: ConversationRow;
  user: MessageRow;
  assistant: MessageRow;
  run_id: string;
  after: number;
}

/** The user's message, stored in the conversation (made now when new) by one statement. */
export async function storeUserMessage(svc: ChatService, who: Caller, req: TurnRequest, conversation: ConversationRow | undefined, workspaceId: string | null, agentId: string | null): Promise<{ conv: ConversationRow; user: MessageRow }> {
  const message = { entity_id: who.entity_id, user_id: who.id, role: 'user' as const, content: req.message, files: req.files, run_id: null, start_seq: null, status: 'complete' as const };
  if (conversation) return { conv: conversation, user: await addUserMessage(svc.sql, who, conversation.id, message) };
  const made = await startConversation(svc.sql, who, { workspace_id: workspaceId, agent_id: agentId, title: titleOf(req.message) }, message);
  return { conv: made.conversation, user: made.message };
}

/** A conversation's title: its first message on one line, cut at 80 characters. */
export function titleOf(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
