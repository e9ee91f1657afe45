import type { IncomingMessage } from 'node:http';
import type { Context } from 'moleculer';
import { kernelOf } from '../../../kernel/context.ts';
import { ERRORS } from '../../../kernel/errors/catalogue.ts';
import { WORKFLOWS_DECIDE_ACTION } from '../../../kernel/nodes/durable.ts';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { CHAT_ERR } from '../errors.ts';
import { removeFiles } from '../form.ts';
import { relayRun } from '../relay.ts';
import { asCaller, awaitRun, interruptRun } from '../runs.ts';
import { LAST_EVENT_ID_PARAM, lastEventIdOf } from '../../../kernel/sse.ts';
import { deleteConversation, findConversation, insertMessage, listConversations, listMessages, runMessage, setPending, takePending, type StoredFile } from '../store.ts';
import { conversationView, CONVERSATION_SCHEMA, MESSAGE_SCHEMA, messageView } from '../views.ts';
import type { ChatAction } from '../service.ts';

const CONVERSATION_ID = { conversation_id: { type: 'string', min: 1, max: 64 } } as const;

/** `GET /api/v1/chat/conversations`: the caller's conversations, newest activity first. */
export const listConversationsAction: ChatAction = {
  rest: 'GET /conversations',
  summary: 'Your conversations',
  description: 'Your direct conversations, the most recently active first. Workspace threads are read at /api/v1/workspaces/{workspace_id}/chat/messages.',
  tags: ['chat'],
  params: { ...PAGING_PARAMS },
  response: pageSchema(CONVERSATION_SCHEMA),
  async handler(ctx: Context<{ limit: number; offset: number }>) {
    const page = await listConversations(this.db, identityOf(ctx), ctx.params.limit, ctx.params.offset);
    return { items: page.items.map(conversationView), total: page.total, limit: ctx.params.limit, offset: ctx.params.offset };
  },
};

/** `GET /api/v1/chat/conversations/{id}/messages`: oldest first. */
export const listMessagesAction: ChatAction = {
  rest: 'GET /conversations/:conversation_id/messages',
  summary: 'Messages of a conversation',
  description: 'Oldest first, paged. An assistant message still `streaming` is being answered (follow GET /chat/runs/{run_id}/events).',
  tags: ['chat'],
  params: { ...CONVERSATION_ID, ...PAGING_PARAMS },
  response: pageSchema(MESSAGE_SCHEMA),
  async handler(ctx: Context<{ conversation_id: string; limit: number; offset: number }>) {
    const conversation = await findConversation(this.db, identityOf(ctx), ctx.params.conversation_id);
    const page = await listMessages(this.db, conversation.id, ctx.params.limit, ctx.params.offset);
    return { items: page.items.map(messageView), total: page.total, limit: ctx.params.limit, offset: ctx.params.offset };
  },
};

/** `DELETE /api/v1/chat/conversations/{id}`: the conversation, its messages and files; a run still answering is stopped. */
export const removeConversation: ChatAction = {
  rest: 'DELETE /conversations/:conversation_id',
  summary: 'Delete a conversation',
  description: 'Removes the conversation, its messages and their files. A run still answering is asked to stop; one waiting for an approval or an answer is cancelled. A workspace thread can be deleted by an owner or admin only.',
  tags: ['chat'],
  params: { ...CONVERSATION_ID },
  response: { 204: { description: 'Deleted' } },
  async handler(ctx: Context<{ conversation_id: string }>) {
    const who = identityOf(ctx);
    const conversation = await findConversation(this.db, who, ctx.params.conversation_id);
    if (conversation.kind === 'workspace' && who.role !== 'owner' && who.role !== 'admin') throw ERRORS.FORBIDDEN('Only an owner or admin may delete a workspace thread.');
    const { items } = await listMessages(this.db, conversation.id, 100_000, 0);
    const running = items.find((m) => m.status === 'streaming')?.run_id;
    if (running) interruptRun(this.broker, running, 'the conversation was deleted');
    if (conversation.pending) await ctx.call('workflows.cancelRun', { run_id: conversation.pending.run_id }, asCaller(who)).catch(() => undefined);
    await deleteConversation(this.db, conversation);
    await removeFiles(kernelOf(this.broker).objects, items.flatMap((m) => (m.files ?? []) as StoredFile[]));
    (ctx.meta as Record<string, unknown>).$statusCode = 204;
    return null;
  },
};

/** `POST /api/v1/chat/conversations/{id}/approval`: decides the tool call the conversation's run waits on. */
export const decideApproval: ChatAction = {
  rest: 'POST /conversations/:conversation_id/approval',
  summary: 'Approve or reject what the conversation waits on',
  description: 'A tool call (`pause.source: tool`) or an approval wait of the workspace chat entrypoint\'s workflow (`source: workflow`, decided only by the member who started that run, else 403). The run goes on at once (approve: the tool runs or the workflow continues; reject: the model is told, or the workflow run fails). The answer names the new assistant message and the event id to follow from: GET /api/v1/chat/runs/{run_id}/events?last_event_id={last_event_id}. 409 CHAT_ERR_NO_PENDING_APPROVAL when nothing waits.',
  tags: ['chat'],
  params: { ...CONVERSATION_ID, decision: { type: 'enum', values: ['approve', 'reject'] }, comment: { type: 'string', max: 2000, optional: true } },
  response: {
    type: 'object',
    properties: { conversation_id: { type: 'string' }, run_id: { type: 'string' }, decision: { type: 'string' }, last_event_id: { type: 'integer' }, message: MESSAGE_SCHEMA },
    required: ['conversation_id', 'run_id', 'decision', 'last_event_id', 'message'],
  },
  async handler(ctx: Context<{ conversation_id: string; decision: 'approve' | 'reject'; comment?: string }>) {
    const who = identityOf(ctx);
    const conversation = await findConversation(this.db, who, ctx.params.conversation_id);
    const pending = conversation.pending;
    if (pending?.kind !== 'approval') throw CHAT_ERR.NO_PENDING_APPROVAL('Nothing in this conversation waits for an approval.');
    const { seq, owner_id } = await awaitRun(this.broker, who, pending.run_id, 0);
    // a workflow's approval wait is its run owner's to decide (who sent the message that started it)
    if (pending.source === 'workflow' && owner_id !== who.id) throw ERRORS.FORBIDDEN("Only the member whose message started this workflow run can decide its approval.");
    const message = await this.db.transaction(async (transaction) => {
      if (!(await takePending(this.db, conversation.id, pending.run_id, pending.step_id, transaction))) throw CHAT_ERR.NO_PENDING_APPROVAL('The approval was decided meanwhile.');
      return insertMessage(this.db, { entity_id: who.entity_id, conversation_id: conversation.id, user_id: null, role: 'assistant', content: '', run_id: pending.run_id, workflow_id: pending.workflow_id ?? null, start_seq: seq, status: 'streaming' }, transaction);
    });
    // after the commit, never inside it: the embedded database serves one transaction at a time
    try {
      const decision = { run_id: pending.run_id, step_id: pending.step_id, decision: ctx.params.decision, ...(ctx.params.comment ? { comment: ctx.params.comment } : {}) };
      await ctx.call(pending.source === 'workflow' ? 'workflows.resumeRun' : WORKFLOWS_DECIDE_ACTION, decision, asCaller(who));
    } catch (err) {
      await setPending(this.db, conversation.id, pending);
      await this.db.query("UPDATE chat_messages SET status = 'failed', updated_at = now() WHERE id = $1", { bind: [message.id] });
      throw err;
    }
    return { conversation_id: conversation.id, run_id: pending.run_id, decision: ctx.params.decision, last_event_id: seq, message: messageView(message) };
  },
};

/** `GET /api/v1/chat/runs/{run_id}/events`: a reconnecting client's stream of a chat run. */
export const runEvents: ChatAction = {
  rest: { method: 'GET', path: '/runs/:run_id/events', passReqResToParams: true },
  summary: 'Follow a chat run again (SSE)',
  description: 'The frames of POST /chat/stream for a run of one of your conversations: `message.start` (no id), then the durable frames after `Last-Event-ID` (or `?last_event_id=`; none: from the run\'s start) and the live ones, to `message.end`. Disconnecting here does not stop the run.',
  tags: ['chat'],
  params: { run_id: { type: 'string', min: 1, max: 64 }, ...LAST_EVENT_ID_PARAM, $req: { type: 'any', optional: true }, $res: { type: 'any', optional: true } },
  response: { 200: { description: 'Server-sent events', contentType: 'text/event-stream', schema: { type: 'string' } } },
  async handler(ctx: Context<{ run_id: string; last_event_id?: number; $req?: IncomingMessage }>) {
    const who = identityOf(ctx);
    const message = await runMessage(this.db, who, ctx.params.run_id);
    if (!message) throw ERRORS.NOT_FOUND(`No chat run with id '${ctx.params.run_id}'.`, { resource: 'run', id: ctx.params.run_id });
    const params = ctx.params as { $req?: { headers: Record<string, string | string[] | undefined> }; last_event_id?: number };
    return relayRun(this, ctx, who, message, lastEventIdOf(params), { interruptOnGone: false });
  },
};
