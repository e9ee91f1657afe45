import type { Context, ServiceSchema } from 'moleculer';
import { kernelOf } from '../../kernel/context.ts';
import { pooledSql } from '../../kernel/db/pooled-sql.ts';
import { WORKFLOWS_CHAT_RUN_STOPPED_EVENT } from '../../kernel/nodes/durable.ts';
import { message, stream } from './actions/message.ts';
import { decideApproval, listConversationsAction, listMessagesAction, removeConversation, runEvents } from './actions/conversations.ts';
import { postWorkspaceMessage, workspaceMessages } from './actions/workspace-thread.ts';
import { settleOutcome, type ChatOutcome } from './outcome.ts';
import type { ChatService } from './service.ts';

/**
 * Chat: `/api/v1/chat` (messages whole or streamed, conversations, approvals, resumable run
 * streams) and the workspace thread `/api/v1/workspaces/{id}/chat/messages`. Every reply is a
 * durable agent run (the `agent` node type on the workflow engine); its events become the chat
 * frames. See README.md.
 */
export default {
  name: 'chat',
  settings: { rest: '/chat' },
  actions: {
    message,
    stream,
    runEvents,
    listConversations: listConversationsAction,
    listMessages: listMessagesAction,
    removeConversation,
    decideApproval,
    workspaceMessages,
    postWorkspaceMessage,
  },
  events: {
    [WORKFLOWS_CHAT_RUN_STOPPED_EVENT]: {
      group: 'chat',
      handler(this: ChatService, ctx: Context<ChatOutcome>) {
        // a run of the workspace's chat entrypoint stopped: its reply settles even with no client following
        void settleOutcome(this, ctx.params).catch((err: Error) => this.logger.warn({ err, run_id: ctx.params.run_id }, 'could not settle a chat reply from its workflow run'));
      },
    },
    'agent.run.outcome': {
      group: 'chat',
      handler(this: ChatService, ctx: Context<ChatOutcome>) {
        // not awaited: the node emitting it waits for its listeners, and settling waits for the run to commit its end
        void settleOutcome(this, ctx.params).catch((err: Error) => this.logger.warn({ err, run_id: ctx.params.run_id }, 'could not settle a chat reply from its run outcome'));
      },
    },
  },
  created(this: ChatService) {
    const kernel = kernelOf(this.broker);
    this.db = kernel.db;
    this.sql = pooledSql(kernel.db, { namedStatements: !kernel.config.embedded.database });
    this.env = kernel.config.env;
  },
} as unknown as ServiceSchema;
