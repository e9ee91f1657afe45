import type { Context } from 'moleculer';
import { identityOf } from '../../../kernel/tenancy/identity.ts';
import { PAGING_PARAMS, pageSchema } from '../../../kernel/tenancy/paging.ts';
import { MESSAGE_FIELDS } from '../params.ts';
import { asCaller } from '../runs.ts';
import { listMessages, workspaceThread } from '../store.ts';
import { takeTurn } from '../turn.ts';
import { MESSAGE_SCHEMA, messageView } from '../views.ts';
import { replyOf, REPLY_RESPONSES } from './message.ts';
import type { ChatAction } from '../service.ts';

const WORKSPACE_ID = { workspace_id: { type: 'string', min: 1, max: 64 } } as const;
const ROUTE = { basePath: '/workspaces', path: '/:workspace_id/chat/messages' };

/** 404 unless the workspace is the caller's entity's. */
async function resolveWorkspace(ctx: Context, workspaceId: string): Promise<string> {
  const ws = await ctx.call<{ id: string }, { workspace_id: string }>('workspaces.resolve', { workspace_id: workspaceId }, asCaller(identityOf(ctx)));
  return ws.id;
}

/** `GET /api/v1/workspaces/{id}/chat/messages`: the workspace's shared thread, oldest first. */
export const workspaceMessages: ChatAction = {
  rest: { method: 'GET', ...ROUTE },
  summary: "The workspace's chat thread",
  description: 'One conversation per workspace, shared by the members of the entity. Oldest first, paged; empty until the first message.',
  tags: ['chat'],
  params: { ...WORKSPACE_ID, ...PAGING_PARAMS },
  response: pageSchema(MESSAGE_SCHEMA),
  async handler(ctx: Context<{ workspace_id: string; limit: number; offset: number }>) {
    const workspaceId = await resolveWorkspace(ctx, ctx.params.workspace_id);
    const thread = await workspaceThread(this.db, identityOf(ctx), workspaceId, false);
    const page = thread ? await listMessages(this.db, thread.id, ctx.params.limit, ctx.params.offset) : { items: [], total: 0 };
    return { items: page.items.map(messageView), total: page.total, limit: ctx.params.limit, offset: ctx.params.offset };
  },
};

/** `POST /api/v1/workspaces/{id}/chat/messages`: a message in the workspace thread, answered by its master agent (if any). */
export const postWorkspaceMessage: ChatAction = {
  rest: { method: 'POST', ...ROUTE },
  summary: 'Post to the workspace thread and wait for the reply',
  description: "Answered by the workspace's master agent, else a plain assistant; otherwise like POST /api/v1/chat/message (202 past CHAT_REPLY_WAIT_SECONDS; a pending question is answered by the next message, whoever posts it).",
  tags: ['chat'],
  params: { ...WORKSPACE_ID, message: MESSAGE_FIELDS.message, workspace_context: MESSAGE_FIELDS.workspace_context },
  response: REPLY_RESPONSES,
  async handler(ctx: Context<{ workspace_id: string; message: string; workspace_context: boolean }>) {
    const who = identityOf(ctx);
    const workspaceId = await resolveWorkspace(ctx, ctx.params.workspace_id);
    const thread = (await workspaceThread(this.db, who, workspaceId, true))!;
    const turn = await takeTurn(this, ctx, who, { message: ctx.params.message, workspace_context: ctx.params.workspace_context, workspace_id: workspaceId, files: [] }, thread);
    return replyOf(this, ctx, who, turn);
  },
};
