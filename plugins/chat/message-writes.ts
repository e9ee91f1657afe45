import type { PooledSql } from '../../kernel/db/pooled-sql.ts';
import { ERRORS } from '../../kernel/errors/catalogue.ts';
import { newId } from '../../kernel/tenancy/ids.ts';
import type { Caller, ConversationRow, MessageRow, StoredFile } from './store.ts';

/**
 * The writes of a message taken, each one statement on the pooled connections (no transaction
 * around several): a message with its conversation's `updated_at`, a conversation made with its
 * first message. A stream starts hundreds of these per second on one node, where a transaction
 * of four statements through sequelize cost a round trip and a socket write each.
 */

export type NewMessage = Pick<MessageRow, 'entity_id' | 'conversation_id' | 'user_id' | 'role' | 'content' | 'run_id' | 'start_seq' | 'status'> & { files?: StoredFile[]; workflow_id?: string | null };

/** The message's values as $1..$12 of MESSAGE_SELECT (conversation_id left to the statement). */
function messageValues(m: Omit<NewMessage, 'conversation_id'>, now: Date): unknown[] {
  return [newId(), m.entity_id, m.user_id, m.role, m.content, JSON.stringify(m.files ?? []), m.run_id, m.start_seq, m.status, m.workflow_id ?? null, now];
}

/** The message row from `c` (the conversation the statement wrote), typed for INSERT ... SELECT. */
const MESSAGE_INSERT = `INSERT INTO chat_messages (id, entity_id, conversation_id, user_id, role, content, files, run_id, start_seq, status, workflow_id, created_at, updated_at)
  SELECT $1::uuid, $2::varchar, c.id, $3::varchar, $4::varchar, $5::text, $6::jsonb, $7::uuid, $8::integer, $9::varchar, $10::uuid, $11::timestamptz, $11::timestamptz FROM c RETURNING *`;

const notFound = (id: string) => ERRORS.NOT_FOUND(`No conversation with id '${id}'.`, { resource: 'conversation', id });

/** Adds a message to a conversation and moves the conversation's `updated_at` to it. */
export async function addMessage(sql: PooledSql, m: NewMessage): Promise<MessageRow> {
  const row = await sql.one<MessageRow>(
    `WITH c AS (UPDATE chat_conversations SET updated_at = $11 WHERE id = $12 RETURNING id) ${MESSAGE_INSERT}`,
    [...messageValues(m, new Date()), m.conversation_id],
    'chat_add_message',
  );
  if (!row) throw notFound(m.conversation_id);
  return row;
}

/** The caller's message in their conversation (their direct one, or a workspace thread of their entity); 404 when it is not there. */
export async function addUserMessage(sql: PooledSql, who: Caller, conversationId: string, m: Omit<NewMessage, 'conversation_id'>): Promise<MessageRow> {
  const row = await sql.one<MessageRow>(
    `WITH c AS (UPDATE chat_conversations SET updated_at = $11 WHERE id = $12 AND entity_id = $2 AND (kind = 'workspace' OR user_id = $13) RETURNING id) ${MESSAGE_INSERT}`,
    [...messageValues(m, new Date()), conversationId, who.id],
    'chat_add_user_message',
  );
  if (!row) throw notFound(conversationId);
  return row;
}

/** A new direct conversation of the caller with its first message. */
export async function startConversation(
  sql: PooledSql,
  who: Caller,
  fields: { workspace_id: string | null; agent_id: string | null; title: string },
  m: Omit<NewMessage, 'conversation_id'>,
): Promise<{ conversation: ConversationRow; message: MessageRow }> {
  const now = new Date();
  const conversation: ConversationRow = {
    id: newId(), entity_id: who.entity_id, user_id: who.id, workspace_id: fields.workspace_id, agent_id: fields.agent_id, kind: 'direct', title: fields.title, pending: null, created_at: now, updated_at: now,
  };
  const message = await sql.one<MessageRow>(
    `WITH c AS (INSERT INTO chat_conversations (id, entity_id, user_id, workspace_id, agent_id, kind, title, created_at, updated_at)
       VALUES ($12, $2, $13, $14, $15, 'direct', $16, $11, $11) RETURNING id) ${MESSAGE_INSERT}`,
    [...messageValues(m, now), conversation.id, who.id, fields.workspace_id, fields.agent_id, fields.title],
    'chat_start_conversation',
  );
  return { conversation, message: message! };
}
