import {
  createConversation, findConversation, insertMessage, type Caller, type ConversationRow, type MessageRow, type StoredFile,
} from './store.ts';
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

/** The user's message, stored in the conversation (made now when new) in one transaction. */
export async function storeUserMessage(svc: ChatService, who: Caller, req: TurnRequest, conversation: ConversationRow | undefined, workspaceId: string | null, agentId: string | null): Promise<{ conv: ConversationRow; user: MessageRow }> {
  return svc.db.transaction(async (transaction) => {
    const conv = conversation
      ? await findConversation(svc.db, who, conversation.id, transaction)
      : await createConversation(svc.db, who, { workspace_id: workspaceId, agent_id: agentId, title: titleOf(req.message) }, transaction);
    const user = await insertMessage(svc.db, { entity_id: who.entity_id, conversation_id: conv.id, user_id: who.id, role: 'user', content: req.message, files: req.files, run_id: null, start_seq: null, status: 'complete' }, transaction);
    return { conv, user };
  });
}

/** A conversation's title: its first message on one line, cut at 80 characters. */
export function titleOf(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
