import type { Context } from 'moleculer';
import { WORKFLOWS_START_CHAT_RUN_ACTION, type ChatEntrypoint } from '../../kernel/nodes/durable.ts';
import { asCaller } from './runs.ts';
import { addMessage } from './message-writes.ts';
import type { Caller, ConversationRow } from './store.ts';
import { storeUserMessage, type Turn, type TurnRequest } from './user-message.ts';
import type { ChatService } from './service.ts';


interface EntrypointTarget {
  conversation: ConversationRow | undefined;
  workspaceId: string;
  entrypoint: ChatEntrypoint;
  history: unknown[];
}

/**
 * A message to a workspace whose chat entrypoint is a workflow binding: stored, then a run of
 * that binding started with `{{trigger}}` = `{reason: 'chat', message, conversation_id,
 * workspace_id, user_id, history, files}`, owned by the sender. Its assistant message follows
 * the run like an agent's (chat frames, with a `workflow.step` per step), so its progress,
 * approvals and questions are projected into the conversation.
 */
export async function entrypointTurn(svc: ChatService, ctx: Context, who: Caller, req: TurnRequest, target: EntrypointTarget): Promise<Turn> {
  const { conv, user } = await storeUserMessage(svc, who, req, target.conversation, target.workspaceId, null);
  const files = req.files.map(({ object_key, media_type, filename }) => ({ object_key, media_type, filename }));
  const trigger = { reason: 'chat', message: req.message, conversation_id: conv.id, workspace_id: target.workspaceId, user_id: who.id, history: target.history, files };
  // after the commit, never inside it: the run's writes go through another connection
  const started = await ctx.call<{ run_id: string; seq: number }, unknown>(WORKFLOWS_START_CHAT_RUN_ACTION, { binding_id: target.entrypoint.binding_id, trigger, watch: true }, asCaller(who));
  const assistant = await addMessage(svc.sql, {
    entity_id: who.entity_id, conversation_id: conv.id, user_id: null, role: 'assistant', content: '', run_id: started.run_id, workflow_id: target.entrypoint.workflow_id, start_seq: started.seq ?? 0, status: 'streaming',
  });
  return { conversation: conv, user, assistant, run_id: started.run_id, after: started.seq ?? 0 };
}
